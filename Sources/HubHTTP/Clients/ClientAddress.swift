import HubPrimitives

/// Which client a request comes from, for per-client limits: the peer's address, or, when the
/// peer is a trusted proxy (`trustedProxies`), the address that proxy names in
/// `X-Forwarded-For`: the rightmost entry that is not itself a trusted proxy (entries further
/// left were written by the client and prove nothing); when every entry is trusted, the
/// leftmost (as nginx's `real_ip_recursive on`). Entries may carry a port (`ip:port`,
/// `[v6]:port`). IPv6 clients are one client per prefix (`limits.clientIPv6Prefix`, a /64 by
/// default): a host is given a whole /64 and picks any address in it.
///
/// `X-Forwarded-For` from a peer that is not trusted is ignored and reported to
/// `ignoredForwarding` (the server counts it and logs it now and then: behind a balancer that is
/// a `trustedProxies` setting that misses it, and every user shares the balancer's budgets).
package final class ClientAddress: Sendable {
    package let trustedProxies: [IPNetwork]
    /// The prefix length that makes one IPv6 client.
    package let ipv6Prefix: Int
    /// Told the peer's address of each request whose `X-Forwarded-For` was ignored.
    private let ignoredForwarding: (@Sendable (_ peer: String) -> Void)?

    package init(
        trustedProxies: [IPNetwork], ipv6Prefix: Int = 64, ignoredForwarding: (@Sendable (_ peer: String) -> Void)? = nil
    ) {
        self.trustedProxies = trustedProxies
        self.ipv6Prefix = ipv6Prefix
        self.ignoredForwarding = ignoredForwarding
    }

    /// The client of `request` as a limit key; `"unknown"` when there is no peer address (an
    /// in-memory request).
    package func of(_ request: HTTPRequest) -> String {
        guard let peerText = request.remoteAddress else { return "unknown" }
        guard let peer = IPAddress(peerText) else { return peerText }
        guard !trustedProxies.isEmpty, isTrusted(peer) else { return key(peer) }
        var hops: [IPAddress] = []
        for value in request.headers.values(for: "X-Forwarded-For") {
            for entry in value.split(separator: ",") {
                // Garbage from a trusted proxy: the proxy is the client we know.
                guard let address = IPAddress.forwarded(entry.trimmingOWS()) else { return key(peer) }
                hops.append(address)
            }
        }
        for hop in hops.reversed() where !isTrusted(hop) { return key(hop) }
        return key(hops.first ?? peer)
    }

    /// Reports a request that carries `X-Forwarded-For` from a peer that is not a trusted proxy
    /// to `ignoredForwarding`. Cheap for a request without the header: one header lookup.
    package func noteForwarding(of request: HTTPRequest) {
        guard let ignoredForwarding, request.headers["X-Forwarded-For"] != nil, let peerText = request.remoteAddress else {
            return
        }
        if let peer = IPAddress(peerText), isTrusted(peer) { return }
        ignoredForwarding(peerText)
    }

    /// Whether `request`'s peer is a trusted proxy (`trustedProxies`): what may name a user in
    /// `identity.header`. A request with no peer address (in process) is not.
    package func isTrustedPeer(_ request: HTTPRequest) -> Bool {
        guard let peerText = request.remoteAddress, let peer = IPAddress(peerText) else { return false }
        return isTrusted(peer)
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// An address as a limit key: IPv4 as written, IPv6 as its prefix (`2001:db8:1:2::/64`).
    private func key(_ address: IPAddress) -> String {
        guard !address.isIPv4, ipv6Prefix < 128 else { return address.text }
        return address.masked(toPrefix: ipv6Prefix).text + "/" + String(ipv6Prefix)
    }
}
