import HubMetrics

/// The Server-Sent Events families besides those ``ServerMetrics`` holds: the caps' refusals and
/// the patch history (registered by ``StreamLimiter`` and ``JSONPatchHistory``).
enum StreamMetrics {
    /// `hub_sse_streams_refused_total{cap}` (`per_session`, `per_client`, `global`).
    static func streamsRefused(on registry: MetricsRegistry) -> MetricFamily<Counter> {
        registry.counter(
            "hub_sse_streams_refused_total",
            help: "Server-Sent Events streams refused by a cap (per_session and per_client: 429, global: 503).",
            labels: ["cap"])
    }

    /// `hub_sse_streams_max`: `limits.sseStreams`, beside `hub_sse_streams` for a "near the cap" alert.
    static func streamsMax(on registry: MetricsRegistry) -> Gauge {
        registry.gauge("hub_sse_streams_max", help: "The cap on open Server-Sent Events streams (limits.sseStreams).").labels()
    }

    /// `hub_sse_patches_computed_total`.
    static func patchesComputed(on registry: MetricsRegistry) -> Counter {
        registry.counter(
            "hub_sse_patches_computed_total",
            help: "JSON Patches computed for event streams (each is shared by every listener that sends it).").labels()
    }

    /// `hub_patch_history_bytes`.
    static func patchHistoryBytes(on registry: MetricsRegistry) -> Gauge {
        registry.gauge(
            "hub_patch_history_bytes",
            help: "Bytes the patch history keeps for patch listeners (bounded by limits.patchHistoryBytes).").labels()
    }
}
