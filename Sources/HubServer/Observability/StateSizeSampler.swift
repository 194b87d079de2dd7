import HubEngine
import HubMetrics
import HubSync

/// `hub_state_bytes{backend}`: what the state store takes (``StateStore/storedBytes()``: the
/// SQLite file and its write-ahead log, PostgreSQL's table with its indexes, the memory store's
/// keys and values). A background task asks the store every ``interval`` and the scrape reads
/// the last answer: never a database call per request, never on an event loop. Until the first
/// answer (or for a store that cannot tell) the family has no sample; a failed sample keeps the
/// last answer.
final class StateSizeSampler: Sendable {
    /// Time between two samples.
    static let interval = Duration.seconds(5)

    private let bytes = Locked<Int64?>(nil)
    private let task = Locked<Task<Void, Never>?>(nil)

    init(registry: MetricsRegistry, backend: String) {
        let bytes = bytes
        registry.collectedGauge(
            "hub_state_bytes",
            help: "Bytes the state store takes, by backend (sqlite: the database file plus its write-ahead log; postgres: the table with its indexes; memory: keys and values), sampled every 5 s."
        ) {
            bytes.withLock { $0 }.map { [(labels: [("backend", backend)], value: Double($0))] } ?? []
        }
    }

    /// Samples `store` now and then every ``interval`` until ``stop()``.
    func start(_ store: any StateStore) {
        let bytes = bytes
        let started = Task.detached {
            while !Task.isCancelled {
                if let size = try? await store.storedBytes() { bytes.withLock { $0 = size } }
                try? await Task.sleep(for: Self.interval)
            }
        }
        task.withLock { $0 = started }
    }

    func stop() {
        task.withLock { $0 }?.cancel()
    }
}
