import HubLogging
import HubHTTP
import HubMetrics
import HubPrimitives
import Synchronization

/// Which client a request comes from, for per-client limits: the peer's address, or, when the
/// peer is a trusted proxy (`trustedProxies`), the address that proxy names in
/// `X-Forwarded-For`: the rightmost entry that is not itself a trusted proxy (entries further
/// left were written by the client and prove nothing); when every entry is trusted, the
/// leftmost (as nginx's `real_ip_recursive on`). Entries may carry a port (`ip:port`,
/// `[v6]:port`). IPv6 clients are one client per prefix (`limits.clientIPv6Prefix`, a /64 by
/// default): a host is given a whole /64 and picks any address in it.
///
/// `X-Forwarded-For` from a peer that is not trusted is ignored, counted
/// (`hub_forwarded_for_ignored_total`) and logged at most once a minute: behind a balancer that
/// is a `trustedProxies` setting that misses it, and every user shares the balancer's budgets.
final class ClientAddress: Sendable {
    let trustedProxies: [IPNetwork]
    /// The prefix length that makes one IPv6 client.
    let ipv6Prefix: Int
    private let ignored: Counter?
    private let logger: JSONLogger?
    /// When the last warning was logged (nanoseconds since `origin`; `Int64.min`: never).
    private let lastWarning = Atomic<Int64>(.min)
    private let origin = ContinuousClock.now

    /// How often the misconfiguration warning is logged at most.
    static let warningInterval = Duration.seconds(60)

    init(trustedProxies: [IPNetwork], ipv6Prefix: Int = 64, registry: MetricsRegistry? = nil, logger: JSONLogger? = nil) {
        self.trustedProxies = trustedProxies
        self.ipv6Prefix = ipv6Prefix
        self.ignored = registry?.counter(
            "hub_forwarded_for_ignored_total",
            help: "Requests whose X-Forwarded-For was ignored: the peer is not in trustedProxies.").labels()
        self.logger = logger
    }

    /// The client of `request` as a limit key; `"unknown"` when there is no peer address (an
    /// in-memory request).
    func of(_ request: HTTPRequest) -> String {
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

    /// Counts (and now and then logs) a request that carries `X-Forwarded-For` from a peer that
    /// is not a trusted proxy. Cheap for a request without the header: one header lookup.
    func noteForwarding(of request: HTTPRequest) {
        guard let ignored, request.headers["X-Forwarded-For"] != nil, let peerText = request.remoteAddress else { return }
        if let peer = IPAddress(peerText), isTrusted(peer) { return }
        ignored.increment()
        let now = Int64((ContinuousClock.now - origin).nanoseconds)
        let last = lastWarning.load(ordering: .relaxed)
        guard last == .min || now - last >= Int64(Self.warningInterval.nanoseconds),
            lastWarning.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        logger?.log(
            .warning, "X-Forwarded-For ignored: the peer is not in trustedProxies",
            [
                "peer": .string(peerText),
                "hint": .string(
                    "behind a load balancer or proxy, list its addresses in server.json trustedProxies, or every user shares its per-client limits"),
            ])
    }

    /// Whether `request`'s peer is a trusted proxy (`trustedProxies`): what may name a user in
    /// `identity.header`. A request with no peer address (in process) is not.
    func isTrustedPeer(_ request: HTTPRequest) -> Bool {
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
