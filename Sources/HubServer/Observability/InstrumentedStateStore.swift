import HubEngine
import HubMetrics
import HubSync

/// The state store's metrics: `hub_state_operations_total{backend,op,result}`,
/// `hub_state_operation_duration_seconds{backend,op}`, `hub_state_conflicts_total` and
/// `hub_state_notifications_total{result}`; every label bounded.
final class StateMetrics: Sendable {
    let operations: MetricFamily<Counter>
    let duration: MetricFamily<Histogram>
    let conflicts: MetricFamily<Counter>
    let notifications: MetricFamily<Counter>

    init(registry: MetricsRegistry) {
        operations = registry.counter(
            "hub_state_operations_total",
            help: "State store operations by backend, operation (read, write, delete, versions, list, purge) and result (ok, conflict, too_large, unavailable, outcome_unknown, invalid_key).",
            labels: ["backend", "op", "result"])
        duration = registry.histogram(
            "hub_state_operation_duration_seconds", help: "State store operation durations, by backend and operation.",
            labels: ["backend", "op"])
        conflicts = registry.counter(
            "hub_state_conflicts_total", help: "State writes refused because the value changed since it was read (retried by update).")
        notifications = registry.counter(
            "hub_state_notifications_total",
            help: "State change events (changed: a key's new version, from this process or the shared store's feed; resync: the feed reconnected and versions were compared).",
            labels: ["result"])
        _ = conflicts.labels()
    }

    /// The counts the engine keeps itself: reads answered without state, older shapes.
    static func registerCollected(on registry: MetricsRegistry, counters: EngineCounters, backend: String) {
        registry.collectedCounter(
            "hub_state_reads_without_state_total",
            help: "State reads answered with no value because the store was unavailable (state.onReadError serve-without-state)."
        ) { [(labels: [], value: Double(counters.stateReadFallbacks))] }
        registry.collectedCounter(
            "hub_state_shape_changes_total",
            help: "State values of an older shape read, by result: migrated, or dropped (no migration, or unreadable)."
        ) {
            let shapes = counters.stateShapes
            return [(labels: [("backend", backend), ("result", "migrated")], value: Double(shapes.migrated)),
                    (labels: [("backend", backend), ("result", "dropped")], value: Double(shapes.dropped))]
        }
    }
}

/// A ``StateStore`` that times and counts every call of the one it wraps, and logs why the
/// store was unavailable (``StateUnavailableLog``).
struct InstrumentedStateStore: StateStore {
    let base: any StateStore
    let metrics: StateMetrics
    /// Where the driver's text of an `unavailable` error goes (`nil`: nowhere).
    var unavailableLog: StateUnavailableLog? = nil
    /// Told of every change the store reports (another replica's invalidation, ``InvalidationFeed``).
    let invalidationFeed = Locked<InvalidationFeed?>(nil)

    var backend: String { base.backend }
    var status: StateStoreStatus { base.status }

    func read(_ key: StateKey, now: Int64) async throws(StateError) -> StateRecord? {
        try await measured("read") { () async throws(StateError) in try await base.read(key, now: now) }
    }

    func write(
        _ key: StateKey, bytes: [UInt8], shape: Int, expected: Int64, expiresAt: Int64?, now: Int64, quota: StateQuota?
    ) async throws(StateError) -> Int64 {
        try await measured("write") { () async throws(StateError) in
            try await base.write(key, bytes: bytes, shape: shape, expected: expected, expiresAt: expiresAt, now: now, quota: quota)
        }
    }

    func delete(_ key: StateKey, expected: Int64?) async throws(StateError) -> Bool {
        try await measured("delete") { () async throws(StateError) in try await base.delete(key, expected: expected) }
    }

    func versions(of keys: [StateKey]) async throws(StateError) -> [StateKey: Int64] {
        try await measured("versions") { () async throws(StateError) in try await base.versions(of: keys) }
    }

    func records(withPrefix prefix: String, now: Int64) async throws(StateError) -> [(StateKey, StateRecord)] {
        try await measured("list") { () async throws(StateError) in try await base.records(withPrefix: prefix, now: now) }
    }

    func deleteAll(withPrefix prefix: String) async throws(StateError) -> Int {
        try await measured("delete") { () async throws(StateError) in try await base.deleteAll(withPrefix: prefix) }
    }

    func purgeExpired(now: Int64) async throws(StateError) -> Int {
        try await measured("purge") { () async throws(StateError) in try await base.purgeExpired(now: now) }
    }

    /// Not a store call (no database is asked): not counted.
    func recentRecord(_ key: StateKey, now: Int64) -> StateRecord? { base.recentRecord(key, now: now) }

    /// The sampler's call (`hub_state_bytes`): not counted.
    func storedBytes() async throws(StateError) -> Int64? { try await base.storedBytes() }

    func observe(_ observer: @escaping @Sendable (StateStoreEvent) -> Void) {
        let notifications = metrics.notifications
        let invalidations = invalidationFeed
        base.observe { event in
            switch event {
            case .changed(let key, let version):
                notifications.labels("changed").increment()
                invalidations.withLock { $0 }?.changed(key, version: version)
            case .resync: notifications.labels("resync").increment()
            }
            observer(event)
        }
    }

    func close() { base.close() }

    private func measured<Value>(
        _ operation: String, _ body: () async throws(StateError) -> Value
    ) async throws(StateError) -> Value {
        let start = ContinuousClock.now
        do {
            let value = try await body()
            metrics.duration.labels(backend, operation).observe(ContinuousClock.now - start)
            metrics.operations.labels(backend, operation, "ok").increment()
            return value
        } catch {
            metrics.duration.labels(backend, operation).observe(ContinuousClock.now - start)
            let result: String
            switch error.code {
            case .conflict:
                result = "conflict"
                metrics.conflicts.labels().increment()
            case .tooLarge: result = "too_large"
            case .unavailable:
                result = "unavailable"
                unavailableLog?.record(error, backend: backend, operation: operation)
            case .outcomeUnknown: result = "outcome_unknown"
            case .invalidKey, .authenticationRequired: result = "invalid_key"
            }
            metrics.operations.labels(backend, operation, result).increment()
            throw error
        }
    }
}
