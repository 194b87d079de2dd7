import HubEngine
import HubMetrics

/// The `hub_sessions_*`, `hub_session_tokens_*` and `hub_reload_reruns_total` families: read from
/// the engine's session store and counters when `/metrics` is scraped (docs/METRICS.md).
enum SessionMetrics {
    /// Registers the session and token families, read from the engine at each scrape.
    static func register(on metrics: ServerMetrics, engine: ViewEngine) {
        let sessions = engine.sessions
        metrics.registry.collectedGauge("hub_sessions_active", help: "Live view sessions.") {
            [(labels: [], value: Double(sessions.statistics.active))]
        }
        metrics.registry.collectedGauge(
            "hub_sessions_bytes", help: "Bytes the live sessions hold, as they estimate it (bounded by sessions.maxBytes)."
        ) {
            [(labels: [], value: Double(sessions.statistics.bytes))]
        }
        metrics.registry.collectedCounter("hub_sessions_ended_total", help: "Sessions that ended, by reason.") {
            let statistics = sessions.statistics
            return [
                (labels: [("reason", "evicted")], value: Double(statistics.evicted)),
                (labels: [("reason", "expired")], value: Double(statistics.expired)),
                (labels: [("reason", "deleted")], value: Double(statistics.ended)),
                (labels: [("reason", "failed")], value: Double(statistics.failed)),
            ]
        }
        metrics.registry.collectedCounter(
            "hub_sessions_rebuilt_total", help: "Sessions rebuilt from their token, by why this process did not hold them."
        ) {
            let statistics = sessions.statistics
            return [
                (labels: [("reason", "evicted")], value: Double(statistics.rebuiltEvicted)),
                (labels: [("reason", "expired")], value: Double(statistics.rebuiltExpired)),
                (labels: [("reason", "unknown")], value: Double(statistics.rebuiltUnknown)),
            ]
        }
        let engineCounters = engine.counters
        metrics.registry.collectedCounter(
            "hub_sessions_rebuilt_state_total",
            help: "Rebuilt sessions whose first chain run read their session-scoped state, by whether it found any (Hub-Rebuilt)."
        ) {
            [
                (labels: [("outcome", "kept")], value: Double(engineCounters.rebuiltStates(.kept))),
                (labels: [("outcome", "lost")], value: Double(engineCounters.rebuiltStates(.lost))),
            ]
        }
        metrics.registry.collectedGauge("hub_sessions_max", help: "The cap on live view sessions (sessions.max).") {
            [(labels: [], value: Double(sessions.capacity))]
        }
        metrics.registry.collectedGauge(
            "hub_sessions_protected", help: "Live sessions used since they opened (never evicted by unused ones)."
        ) { [(labels: [], value: Double(sessions.statistics.protected))] }
        metrics.registry.collectedCounter("hub_sessions_created_total", help: "Sessions stored (opened, rebuilt or first used).") {
            [(labels: [], value: Double(sessions.statistics.created))]
        }
        let counters = engine.counters
        metrics.registry.collectedCounter(
            "hub_session_tokens_rejected_total",
            help: "Session tokens refused (404, nothing stored, no upstream reached), by reason."
        ) {
            SessionToken.Rejection.allCases.map { reason in (labels: [("reason", reason.rawValue)], value: Double(counters.rejected(reason))) }
        }
        metrics.registry.collectedGauge(
            "hub_session_tokens_revoked", help: "Revoked session tokens remembered (each until it would have expired)."
        ) { [(labels: [], value: Double(engine.revokedTokens))] }
        metrics.registry.collectedGauge(
            "hub_session_revocations_pending",
            help: "Revocations (DELETE /view answered 503) waiting for the state store to record them, at most 10,000."
        ) { [(labels: [], value: Double(engine.pendingRevocations))] }
        metrics.registry.collectedCounter(
            "hub_reload_reruns_total",
            help: "Chain re-runs a config reload caused: eager (sessions followed over SSE, bounded pool) or lazy (on the next request)."
        ) {
            let reruns = counters.reruns
            return [(labels: [("mode", "eager")], value: Double(reruns.eager)), (labels: [("mode", "lazy")], value: Double(reruns.lazy))]
        }
    }
}
