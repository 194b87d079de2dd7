import HubMetrics

/// What the edge refuses or ignores before an endpoint runs: per-client limits, cross-origin
/// requests from origins not allowed, `X-Forwarded-For` from peers that are not trusted proxies.
enum EdgeMetrics {
    /// `hub_client_limited_total{limit}`: requests refused by a per-client limit (429).
    static func clientLimited(on registry: MetricsRegistry) -> MetricFamily<Counter> {
        registry.counter("hub_client_limited_total", help: "Requests refused by a per-client limit (429), by limit.", labels: ["limit"])
    }

    /// `hub_cors_rejected_total{kind}` (`preflight` or `request`).
    static func corsRejected(on registry: MetricsRegistry) -> MetricFamily<Counter> {
        registry.counter(
            "hub_cors_rejected_total", help: "Cross-origin requests from origins cors.origins does not allow, by kind.",
            labels: ["kind"])
    }

    /// `hub_forwarded_for_ignored_total`.
    static func forwardedForIgnored(on registry: MetricsRegistry) -> Counter {
        registry.counter(
            "hub_forwarded_for_ignored_total",
            help: "Requests whose X-Forwarded-For was ignored: the peer is not in trustedProxies.").labels()
    }
}
