/// The names of the HTTP fields HubServer's API defines (docs/API.md), spelled once.
/// Computed from literals rather than stored: a stored static is reached through a one-time
/// initialization check on every use, and these are read on every request.
public enum HubHeaderName {
    /// `Hub-Session`: the session token a response names and a request sends back.
    public static var session: String { "Hub-Session" }
    /// `Hub-Version`: the view's version within its session.
    public static var version: String { "Hub-Version" }
    /// `Hub-Stale`: the view shows last good content of a failing upstream.
    public static var stale: String { "Hub-Stale" }
    /// `Hub-Rebuilt`: the session was rebuilt from its token (`state-kept` / `state-lost`).
    public static var rebuilt: String { "Hub-Rebuilt" }
    /// `Hub-Locale`: the locale a client asks for (one of `server.json` `locales.supported`),
    /// before `Accept-Language`.
    public static var locale: String { "Hub-Locale" }
}
