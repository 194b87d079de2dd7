import HubPrimitives

/// How the HTTP cache honours an upstream response's `Vary` (RFC 9111 section 4.1).
///
/// The cache keys every stored response on the method, the URL and every request header this
/// client sends (``UpstreamRequest/cacheKey``): a response that varies on headers the request
/// carried is therefore stored per their values already (the secondary key is part of the key),
/// and is served only to a request that sends the same values. `Accept-Encoding` (which curl
/// sends, the same on every request) and `Host` (part of the URL) count as sent. A response that
/// varies on anything else (a `Cookie` this client did not send, `User-Agent`, `*`) would have to
/// be matched against values the cache does not know: it is not stored, not reused as fresh
/// content by the chain memo, and counted (`hub_upstream_uncacheable_total{reason="vary"}`).
public enum VaryRule {
    /// Request headers every request carries without naming them (lowercased).
    static let implicit: Set<String> = ["accept-encoding", "host"]

    /// Whether a response with `responseHeaders` to a request that sent `requestHeaders` may
    /// be stored: every field name its `Vary` lists is one the request sent (or ``implicit``).
    public static func allowsStoring(
        responseHeaders: [(name: String, value: String)], requestHeaders: [(name: String, value: String)]
    ) -> Bool {
        for header in responseHeaders where header.name.asciiCaseInsensitiveEquals("vary") {
            for field in header.value.split(separator: ",") {
                let name = field.trimmingOWS()
                guard !name.isEmpty else { continue }
                if name == "*" { return false }
                let lowered = name.lowercased()
                if implicit.contains(lowered) { continue }
                guard requestHeaders.contains(where: { $0.name.lowercased() == lowered }) else { return false }
            }
        }
        return true
    }
}
