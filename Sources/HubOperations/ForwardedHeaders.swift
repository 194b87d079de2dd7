import HubCrypto
import HubEngine
import HubPrimitives

/// `forwardHeaders` of remote operations and remote action namespaces: caller request headers
/// (`Authorization`, ...) sent on to the upstream. The values travel in the session's
/// ``ViewRequest`` (kept as long as the session, bounded by ``RetainedHeaders``) and reach the
/// upstream request, nothing else: no log line, metric, token or problem carries them, caches
/// key on a SHA-256 fingerprint of them or are bypassed.
package enum ForwardedHeaders {
    /// Headers `validate` refuses to forward: hop-by-hop (RFC 9110 7.6.1), `Host` (it names
    /// this server), the session token (`Hub-Session`) and the trace context (this server
    /// sends its own span).
    package static let refused: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te",
        "trailer", "transfer-encoding", "upgrade", "host", "content-length", "hub-session",
        TraceContext.parentHeader, TraceContext.stateHeader,
    ]

    /// Refused unless the config also says `"forwardCookies": true`: a browser's cookies are
    /// every credential it holds for this origin.
    package static let cookie = "cookie"

    /// The caller's values of `names`, in that order (the first value of each; absent ones skipped).
    /// `identity` (`forwardIdentity.header`): that header carries the verified user's subject,
    /// whatever the client sent in it.
    package static func values(
        _ names: [String], identity: String? = nil, from request: ViewRequest
    ) -> [(name: String, value: String)] {
        guard !names.isEmpty || identity != nil else { return [] }
        var values = names.compactMap { name in request.header(name).map { (name: name, value: $0) } }
        if let identity, let user = request.user { values.append((name: identity, value: user.subject)) }
        return values
    }

    /// The configured headers with any the caller's forwarded values replace, then those values.
    package static func merge(
        configured: [(name: String, value: String)], forwarded: [(name: String, value: String)]
    ) -> [(name: String, value: String)] {
        guard !forwarded.isEmpty else { return configured }
        let replaced = configured.filter { header in
            !forwarded.contains { $0.name.asciiCaseInsensitiveEquals(header.name) }
        }
        return replaced + forwarded
    }

    /// A SHA-256 (hex) of the forwarded names and values: what a cache may key on.
    package static func fingerprint(_ forwarded: [(name: String, value: String)]) -> String {
        var bytes: [UInt8] = []
        for (name, value) in forwarded {
            bytes += Array(name.lowercased().utf8) + [0] + Array(value.utf8) + [0]
        }
        let digest = SHA256.digest(bytes)
        return String(decoding: digest.flatMap { [Hex.digit($0 >> 4), Hex.digit($0 & 0x0F)] }, as: UTF8.self)
    }

    /// Why `name` may not be forwarded, or nil when it may (`allowCookie`: `forwardCookies`).
    package static func refusal(_ name: String, allowCookie: Bool) -> String? {
        let lowered = name.lowercased()
        if name.isEmpty || name.utf8.contains(where: { $0 <= 32 || $0 >= 127 || $0 == UInt8(ascii: ":") }) {
            return "'\(name)' is not a header name"
        }
        if refused.contains(lowered) {
            return "'\(name)' cannot be forwarded (hop-by-hop, Host, the session token or the trace context)"
        }
        if lowered == cookie && !allowCookie {
            return "forwarding 'Cookie' sends every cookie of the caller upstream; set \"forwardCookies\": true to allow it"
        }
        return nil
    }
}
