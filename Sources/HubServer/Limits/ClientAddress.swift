import HubHTTP
import HubPrimitives

/// Which client a request comes from, for per-client limits: the peer's address, or, when the
/// peer is a trusted proxy (`trustedProxies`), the address that proxy names in
/// `X-Forwarded-For`: the rightmost entry that is not itself a trusted proxy (entries further
/// left were written by the client and prove nothing). Nothing else from the client is trusted.
struct ClientAddress: Sendable {
    let trustedProxies: [IPNetwork]

    /// The client of `request`; `"unknown"` when there is no peer address (an in-memory request).
    func of(_ request: HTTPRequest) -> String {
        guard let peer = request.remoteAddress else { return "unknown" }
        guard !trustedProxies.isEmpty, isTrusted(peer) else { return peer }
        // Every X-Forwarded-For field, in order, as one comma-separated list (RFC 7239 4's
        // predecessor; the de facto format).
        var hops: [Substring] = []
        for value in request.headers.values(for: "X-Forwarded-For") {
            hops.append(contentsOf: value.split(separator: ",").map { $0.trimmingOWS() })
        }
        for hop in hops.reversed() {
            let address = String(hop)
            guard IPNetwork.parse(address) != nil else { return peer }  // garbage: the proxy is the client we know
            if !isTrusted(address) { return address }
        }
        return hops.first.map(String.init) ?? peer
    }

    private func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
