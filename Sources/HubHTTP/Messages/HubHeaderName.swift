/// The names of the HTTP fields HubServer's API defines (docs/API.md), spelled once.
public enum HubHeaderName {
    /// `Hub-Session`: the session token a response names and a request sends back.
    public static let session = "Hub-Session"
    /// `Hub-Version`: the view's version within its session.
    public static let version = "Hub-Version"
    /// `Hub-Stale`: the view shows last good content of a failing upstream.
    public static let stale = "Hub-Stale"
    /// `Hub-Rebuilt`: the session was rebuilt from its token (`state-kept` / `state-lost`).
    public static let rebuilt = "Hub-Rebuilt"
    /// `Hub-Locale`: the locale a client asks for (one of `server.json` `locales.supported`),
    /// before `Accept-Language`.
    public static let locale = "Hub-Locale"
}
