import HubEngine
import HubHTTP
import HubLogging
import HubMetrics
import HubUpstream

/// What the server's resources hold, read when `/metrics` is scraped: client connections,
/// upstream connections, the shared caches' bytes and entries, dropped log lines.
enum ResourceMetrics {
    /// Registers `hub_open_connections`, `hub_upstream_connections_opened_total`,
    /// `hub_upstream_uncacheable_total`,
    /// `hub_cache_bytes`, `hub_cache_entries` and `hub_log_lines_dropped_total`.
    static func register(
        on metrics: ServerMetrics, http: HTTPServer, upstream: CurlUpstreamClient, renderCache: RenderCache, engine: ViewEngine,
        logger: JSONLogger
    ) {
        metrics.registry.collectedGauge("hub_open_connections", help: "Open client connections.") {
            [(labels: [], value: Double(http.openConnections))]
        }
        metrics.registry.collectedCounter("hub_upstream_connections_opened_total", help: "Upstream connections libcurl opened.") {
            [(labels: [], value: Double(upstream.statistics.connectionsOpened))]
        }
        metrics.registry.collectedCounter(
            "hub_upstream_uncacheable_total",
            help: "Cacheable upstream responses not stored (HTTP cache, chain memo), by reason: vary (Vary names a header not sent, or *)."
        ) { [(labels: [("reason", "vary")], value: Double(upstream.statistics.uncacheableVary))] }
        metrics.registry.collectedGauge(
            "hub_cache_bytes", help: "Bytes charged to the shared caches (estimated from the JSON they hold), by cache."
        ) {
            [(labels: [("cache", "render")], value: Double(renderCache.usage.bytes)),
             (labels: [("cache", "memo")], value: Double(engine.memoUsage.bytes)),
             (labels: [("cache", "body_files")], value: Double(HTTPServer.sharedBodyFiles.bytes))]
        }
        metrics.registry.collectedGauge("hub_cache_entries", help: "Entries in the shared caches, by cache.") {
            [(labels: [("cache", "render")], value: Double(renderCache.usage.entries)),
             (labels: [("cache", "memo")], value: Double(engine.memoUsage.entries)),
             (labels: [("cache", "body_files")], value: Double(HTTPServer.sharedBodyFiles.files))]
        }
        metrics.registry.collectedCounter(
            "hub_log_lines_dropped_total", help: "Log lines dropped: the log pipe was full, slow or closed."
        ) { [(labels: [], value: Double(logger.droppedLines))] }
    }
}
