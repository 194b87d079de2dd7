import HubLogging
import HubMetrics
import HubPrimitives
import Synchronization

/// What the server does with a request whose `X-Forwarded-For` ``ClientAddress`` ignored (the
/// peer is not in `trustedProxies`): counts it (`hub_forwarded_for_ignored_total`) and logs a
/// warning at most once a minute. Behind a balancer this is a `trustedProxies` setting that
/// misses it, and every user shares the balancer's per-client budgets.
final class IgnoredForwardingReport: Sendable {
    private let ignored: Counter
    private let logger: JSONLogger?
    /// When the last warning was logged (nanoseconds since `origin`; `Int64.min`: never).
    private let lastWarning = Atomic<Int64>(.min)
    private let origin = ContinuousClock.now

    /// How often the warning is logged at most.
    static let warningInterval = Duration.seconds(60)

    init(registry: MetricsRegistry, logger: JSONLogger?) {
        ignored = EdgeMetrics.forwardedForIgnored(on: registry)
        self.logger = logger
    }

    /// Counts one ignored `X-Forwarded-For` from `peer`, and logs it unless a warning was logged
    /// in the last ``warningInterval``.
    func note(peer: String) {
        ignored.increment()
        let now = Int64((ContinuousClock.now - origin).nanoseconds)
        let last = lastWarning.load(ordering: .relaxed)
        guard last == .min || now - last >= Int64(Self.warningInterval.nanoseconds),
            lastWarning.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        logger?.log(
            .warning, "X-Forwarded-For ignored: the peer is not in trustedProxies",
            [
                "peer": .string(peer),
                "hint": .string(
                    "behind a load balancer or proxy, list its addresses in server.json trustedProxies, or every user shares its per-client limits"),
            ])
    }
}
