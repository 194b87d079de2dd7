import Foundation
import HubEngine
import HubState
import HubTestSupport

/// The stores every contract test runs against: memory, a real SQLite file, a real PostgreSQL
/// (one throwaway cluster per test process, each test on keys of its own).
enum StateBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory, sqlite, postgres

    var description: String { rawValue }

    func makeStore() throws -> any StateStore {
        switch self {
        case .memory: return MemoryStateStore()
        case .sqlite: return try SQLiteStateStore(path: TemporaryFiles.path("state.sqlite3"))
        case .postgres: return try Self.listening(PostgresStateStore(url: try PostgresCluster.shared().url, poolSize: 4))
        }
    }

    /// `store` once its change feed listens (its first resync, which empties its cache, is
    /// behind it), so that what a test writes and expects cached stays cached; up to 30 s.
    static func listening(_ store: PostgresStateStore) throws -> PostgresStateStore {
        for _ in 0..<3_000 where !store.isListening { usleep(10_000) }
        guard store.isListening else { throw HarnessError("the PostgreSQL store's change feed did not connect within 30 s") }
        return store
    }

    /// Two stores on the same data, as two processes (SQLite: one file) or two replicas
    /// (PostgreSQL) would have them; memory has one store only, given twice.
    func makePair() throws -> (any StateStore, any StateStore) {
        switch self {
        case .memory:
            let store = MemoryStateStore()
            return (store, store)
        case .sqlite:
            let path = TemporaryFiles.path("state.sqlite3")
            return (try SQLiteStateStore(path: path), try SQLiteStateStore(path: path))
        case .postgres:
            let url = try PostgresCluster.shared().url
            return (try Self.listening(PostgresStateStore(url: url, poolSize: 2)), try Self.listening(PostgresStateStore(url: url, poolSize: 2)))
        }
    }
}


/// Unique paths under the test process's temporary directory.
enum TemporaryFiles {
    static func path(_ name: String) -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hub-state-tests-\(getpid())/\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/" + name
    }
}

/// A key of its own for each test.
func freshKey(_ name: String = "value") throws -> StateKey {
    try StateKey(name, in: .subject("test-\(UUID().uuidString)"), sessionID: "unused")
}

extension Array where Element == UInt8 {
    init(json text: String) { self = Array(text.utf8) }
}
