import Foundation
import HubEngine
import HubModel
import HubState

/// `server.json` `"state"`: where operations' and actions' state lives (docs/CONFIG.md).
public struct StateStoreSettings: Sendable, Equatable {
    public enum Backend: String, Sendable, CaseIterable {
        /// This process's memory: state ends with the process.
        case memory
        /// One SQLite file in the data directory (the default): state survives restarts of one node.
        case sqlite
        /// A PostgreSQL database shared by every replica (`url` or `HUB_STATE_URL`).
        case postgres
    }

    public var backend = Backend.sqlite
    /// The SQLite file, relative to the data directory (`dataDirectory` / `HUB_DATA_DIR`).
    public var path = "state.sqlite3"
    /// The PostgreSQL connection string (`HUB_STATE_URL` wins).
    public var url: String?
    /// PostgreSQL connections at most.
    public var poolSize = 4
    /// Largest value, in bytes of JSON.
    public var maxValueBytes = 64 << 10
    /// Most bytes of JSON over all of one session's values.
    public var maxSessionBytes = 256 << 10
    /// Most bytes of JSON over all of one subject's values.
    public var maxSubjectBytes = 1 << 20
    /// What a read does when the store is unavailable.
    public var onReadError = StateReadFailurePolicy.fail

    public init() {}

    /// The engine's view of these settings.
    package var engineSettings: StateSettings {
        StateSettings(
            maxValueBytes: maxValueBytes, onReadError: onReadError, maxSessionBytes: maxSessionBytes, maxSubjectBytes: maxSubjectBytes)
    }

    /// Reads the `"state"` object.
    package init(_ object: JSONObject, reader: ConfigReader) {
        let path = "$.state"
        reader.checkKeys(object, at: path, known: [
            "backend", "path", "url", "poolSize", "maxValueBytes", "maxSessionBytes", "maxSubjectBytes", "onReadError",
        ])
        if let text = reader.string(object, "backend", at: path) {
            if let backend = Backend(rawValue: text) { self.backend = backend } else {
                reader.error("\(path).backend", "must be one of memory, sqlite, postgres")
            }
        }
        if let value = reader.string(object, "path", at: path) { self.path = value }
        if let value = reader.string(object, "url", at: path) { url = value }
        if let value = reader.int(object, "poolSize", at: path, range: 1...256) { poolSize = value }
        if let value = reader.int(object, "maxValueBytes", at: path, range: 1...(16 << 20)) { maxValueBytes = value }
        if let value = reader.int(object, "maxSessionBytes", at: path, range: 1...(1 << 30)) { maxSessionBytes = value }
        if let value = reader.int(object, "maxSubjectBytes", at: path, range: 1...(1 << 30)) { maxSubjectBytes = value }
        if let text = reader.string(object, "onReadError", at: path) {
            if let policy = StateReadFailurePolicy(rawValue: text) { onReadError = policy } else {
                reader.error("\(path).onReadError", "must be fail or serve-without-state")
            }
        }
    }

    /// `HUB_STATE_BACKEND` and `HUB_STATE_URL` (a Kubernetes Secret).
    package mutating func applyEnvironment(_ environment: [String: String], reader: ConfigReader) {
        if let text = environment["HUB_STATE_BACKEND"], !text.isEmpty {
            if let backend = Backend(rawValue: text.lowercased()) { self.backend = backend } else {
                reader.error("HUB_STATE_BACKEND", "must be one of memory, sqlite, postgres, got '\(text)'")
            }
        }
        if let url = environment["HUB_STATE_URL"], !url.isEmpty { self.url = url }
    }

    /// After the environment: the postgres backend needs a connection string from one or the other.
    package func checkComplete(reader: ConfigReader) {
        if backend == .postgres, (url ?? "").isEmpty {
            reader.error("$.state.url", "the postgres state backend needs a connection string: state.url or HUB_STATE_URL")
        }
    }

    /// Opens the store these settings describe. SQLite opens (creating) its file now, mode 0600 in
    /// a directory created 0700: an
    /// unwritable data directory is a start-up error naming it. PostgreSQL connects lazily.
    package func makeStore(dataDirectory: String) throws -> any StateStore {
        switch backend {
        case .memory:
            return MemoryStateStore()
        case .sqlite:
            let file = path.hasPrefix("/") ? path : (dataDirectory as NSString).appendingPathComponent(path)
            do {
                // New directories 0700, the database and its log 0600 (``PrivateFiles``).
                try PrivateFiles.createDirectory((file as NSString).deletingLastPathComponent)
                return try SQLiteStateStore(path: file)
            } catch {
                throw ConfigurationError(issues: [
                    ConfigIssue(
                        file: "server.json", path: "$.state.path",
                        message: "cannot open the SQLite state database \(file): \(error); set state.path, or HUB_DATA_DIR to a writable directory")
                ])
            }
        case .postgres:
            return PostgresStateStore(url: url ?? "", poolSize: poolSize)
        }
    }
}
