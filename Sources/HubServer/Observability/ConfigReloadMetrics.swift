import HubMetrics

/// Config reloads counted as Prometheus counts its own: `hub_config_reloads_total{result}`,
/// `hub_config_last_reload_successful` and `hub_config_last_reload_success_timestamp_seconds`.
struct ConfigReloadMetrics {
    /// `hub_config_reloads_total{result}` (`success`, `failure`; both shown from the start).
    let reloads: MetricFamily<Counter>
    /// `hub_config_last_reload_successful`: 1 or 0.
    let lastSuccessful: Gauge
    /// `hub_config_last_reload_success_timestamp_seconds`.
    let lastSuccessTimestamp: Gauge

    init(registry: MetricsRegistry) {
        reloads = registry.counter(
            "hub_config_reloads_total", help: "Config reloads (SIGHUP, a watched file change), by result.",
            labels: ["result"])
        _ = reloads.labels("success")
        _ = reloads.labels("failure")
        lastSuccessful = registry.gauge(
            "hub_config_last_reload_successful", help: "Whether the last config reload succeeded (1) or was refused (0).")
            .labels()
        lastSuccessTimestamp = registry.gauge(
            "hub_config_last_reload_success_timestamp_seconds",
            help: "When the config last loaded successfully (start-up or reload), in seconds since the epoch."
        ).labels()
    }
}
