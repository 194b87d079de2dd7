import HubMetrics
import HubSync

/// Every metric the server exposes on `/metrics` (docs/METRICS.md).
final class ServerMetrics: Sendable {
    let registry = MetricsRegistry()
    let requests: MetricFamily<Counter>
    let requestDuration: MetricFamily<Histogram>
    let chainDuration: MetricFamily<Histogram>
    let chainMemoHits: MetricFamily<Counter>
    let operationDuration: MetricFamily<Histogram>
    let operationErrors: MetricFamily<Counter>
    let actions: MetricFamily<Counter>
    let upstreamRequests: MetricFamily<Counter>
    let upstreamErrors: MetricFamily<Counter>
    let upstreamCacheHits: MetricFamily<Counter>
    let upstreamDuration: MetricFamily<Histogram>
    let upstreamStaleServed: MetricFamily<Counter>
    /// `hub_strings_missing_total{locale}`: catalog strings resolved without the request's locale.
    let stringsMissing: MetricFamily<Counter>
    let sseStreamsFamily: MetricFamily<Gauge>
    let componentFallbacks: MetricFamily<Counter>
    let ssePatchEvents: MetricFamily<Counter>
    /// `hub_state_rerun_loops_total{feature}`: sessions whose state re-runs were paused.
    let stateRerunLoops: MetricFamily<Counter>
    /// `hub_sse_view_events_encoded_total`: one per distinct view and client variant, not per listener.
    let sseViewEventsEncoded: Counter
    var sseStreams: Gauge { sseStreamsFamily.labels() }

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// The request counter and duration children by route, method and status: one lookup per
    /// request instead of two label-array lookups (an array and a status string each). Striped
    /// by thread: every event loop looks one up per request.
    /// Each stripe also keeps its last hit: a stream of one kind of request compares the key
    /// (small strings) instead of hashing it.
    private let requestChildren = Striped<RequestChildren> { RequestChildren() }

    private struct RequestChildren {
        var last: (key: RequestKey, children: (count: Counter, duration: Histogram))?
        var all: [RequestKey: (count: Counter, duration: Histogram)] = [:]
    }

    /// The `hub_http_requests_total` and `hub_http_request_duration_seconds` children for a request.
    func request(route: String, method: String, status: Int) -> (count: Counter, duration: Histogram) {
        let key = RequestKey(route: route, method: method, status: status)
        let stripe = requestChildren.current
        let found = stripe.withLock { cache -> (count: Counter, duration: Histogram)? in
            if let last = cache.last, last.key == key { return last.children }
            guard let children = cache.all[key] else { return nil }
            cache.last = (key, children)
            return children
        }
        if let found { return found }
        // The families hand every stripe the same children.
        let children = (count: requests.labels(route, method, String(status)), duration: requestDuration.labels(route))
        stripe.withLock {
            $0.all[key] = children
            $0.last = (key, children)
        }
        return children
    }

    init() {
        requests = registry.counter(
            "hub_http_requests_total", help: "HTTP requests by route template, method and status.",
            labels: ["route", "method", "status"])
        requestDuration = registry.histogram(
            "hub_http_request_duration_seconds", help: "Time to produce a response, by route template.", labels: ["route"])
        chainDuration = registry.histogram(
            "hub_chain_duration_seconds", help: "Content loading chain runs, by feature (memo hits excluded).",
            labels: ["feature"])
        chainMemoHits = registry.counter(
            "hub_chain_memo_hits_total", help: "Views answered from the chain memo (no operation ran), by feature.",
            labels: ["feature"])
        operationDuration = registry.histogram(
            "hub_operation_duration_seconds", help: "Content operation runs, by feature and operation.",
            labels: ["feature", "operation"])
        operationErrors = registry.counter(
            "hub_operation_errors_total", help: "Content operations that failed, by feature and operation.",
            labels: ["feature", "operation"])
        actions = registry.counter(
            "hub_actions_total", help: "Actions by namespace and outcome (performed, not_performed, failed).",
            labels: ["namespace", "outcome"])
        upstreamRequests = registry.counter(
            "hub_upstream_requests_total", help: "Upstream requests started.", labels: [])
        upstreamErrors = registry.counter(
            "hub_upstream_errors_total", help: "Upstream requests that failed, by kind.", labels: ["kind"])
        upstreamCacheHits = registry.counter(
            "hub_upstream_cache_hits_total", help: "Upstream responses served from the HTTP cache (fresh or revalidated).",
            labels: ["kind"])
        upstreamStaleServed = registry.counter(
            "hub_upstream_stale_served_total",
            help: "Remote operations answered from their last good content (upstream failing or being refreshed), by feature.",
            labels: ["feature"])
        stringsMissing = registry.counter(
            "hub_strings_missing_total",
            help: "Catalog strings content was built without in the request's locale (the default locale's, or the key), by locale.",
            labels: ["locale"])
        upstreamDuration = registry.histogram(
            "hub_upstream_request_duration_seconds", help: "Upstream request durations, cache hits included.")
        componentFallbacks = registry.counter(
            "hub_component_fallbacks_total",
            help: "Components replaced by their fallback in responses, by feature, the view's component and reason (unsupported, kill_switch).",
            labels: ["feature", "component", "reason"])
        ssePatchEvents = registry.counter(
            "hub_sse_patch_listener_events_total",
            help: "Events sent to listeners that asked for JSON Patch, by kind (patch, or view when no smaller patch exists).",
            labels: ["kind"])
        sseViewEventsEncoded = registry.counter(
            "hub_sse_view_events_encoded_total",
            help: "View events encoded for event streams: once per distinct view and client variant, each written as is to every listener that sends it.").labels()
        stateRerunLoops = registry.counter(
            "hub_state_rerun_loops_total",
            help: "Sessions whose state changes re-ran their chain more than 50 times a second: re-runs paused 10 s, by feature.",
            labels: ["feature"])
        sseStreamsFamily = registry.gauge("hub_sse_streams", help: "Open Server-Sent Events streams.")
        _ = sseStreamsFamily.labels()  // 0 from the start, not absent until the first stream
        ProcessMetrics.register(on: registry)
    }
}
