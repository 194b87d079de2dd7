import Foundation
import HubEngine
import HubPrimitives
import HubSync

/// The embedded ``StateStore``: one SQLite database file (WAL mode) in the server's data
/// directory. Three connections, each on a serial lane of its own, so no event loop waits on the
/// disk: writes (their compare-and-set atomic on the one write lane), reads (WAL lets them run
/// beside the writer, on the latest committed data), and checkpoints (moved off the write lane:
/// a checkpoint's fsync never stalls the writes queued behind it). For one node: replicas need ``PostgresStateStore``
/// (SQLite has no change feed between processes).
///
/// The write-ahead log stays small under any write load: the writer counts the log's frames
/// after each commit (`sqlite3_wal_hook`); every ``checkpointInterval`` writes, or when the log
/// passes ``passiveCheckpointBytes``, a passive checkpoint starts on the checkpoint lane, and
/// past ``truncateCheckpointBytes`` the write lane itself runs a `TRUNCATE` checkpoint before it
/// takes the next write (the writes wait for it: the log cannot outgrow the disk however fast
/// they come). `journal_size_limit` cuts a log left behind by a checkpoint down to
/// ``journalSizeLimit`` when it starts over. The file and its `-wal` and `-shm` are created
/// mode 0600 (``PrivateFiles``).
///
/// The records it wrote and read last are kept in memory (``StateRecordCache``, `cacheBytes`)
/// as the starting point of the next compare-and-set (``recentRecord(_:now:)``), so an update
/// of a key it holds is one call on the write lane. Reads always ask the file: another store
/// may write it (every test server of a process shares one data directory). Each write is one
/// `BEGIN IMMEDIATE` transaction, so its compare-and-set holds against other connections too.
public final class SQLiteStateStore: StateStore {
    /// A connection and the lane it is touched on (each call runs there, one at a time): the
    /// lane's serial queue is what makes this unchecked box safe to share.
    private final class Confined: @unchecked Sendable {
        let database: SQLiteDatabase
        let lane: BlockingLane
        init(_ database: SQLiteDatabase, label: String) {
            self.database = database
            lane = BlockingLane(label: label)
        }
    }

    private let writer: Confined
    private let reader: Confined
    private let checkpointer: Confined
    /// Writes since the last checkpoint was started, and whether one is running.
    private let checkpointState = Locked((writes: 0, running: false))
    /// Writes between two checkpoints (each passive: it never blocks the writer).
    public static let checkpointInterval = 500
    /// Log bytes past which a passive checkpoint starts (SQLite's own default is 1000 pages).
    public static let passiveCheckpointBytes = 4 << 20
    /// Log bytes past which the write lane runs a `TRUNCATE` checkpoint before the next write.
    public static let truncateCheckpointBytes = 32 << 20
    /// `PRAGMA journal_size_limit`: a log that starts over is cut down to this.
    public static let journalSizeLimit = 16 << 20
    /// The bytes of one log frame (a page and its 24-byte header).
    private let frameBytes: Int
    /// How long the write lane keeps trying to fold a log past ``truncateCheckpointBytes``.
    private let busyTimeout: Duration
    /// Frames in the log after the last commit (the write lane's count, for the checkpoint trigger).
    private let logFrames = Locked(0)
    private let observer = StateObserverSlot()
    private let health = Locked(StateStoreStatus(available: true))
    private let cache: StateRecordCache
    private let closed = Locked(false)
    /// The database file.
    public let path: String

    /// Opens (creating) the database at `path`; throws `unavailable` when it cannot.
    /// `cacheBytes`: most bytes of values kept in memory (0: none).
    public init(path: String, busyTimeout: Duration = .seconds(5), cacheBytes: Int = 16 << 20) throws(StateError) {
        self.path = path
        self.busyTimeout = busyTimeout
        cache = StateRecordCache(maxBytes: cacheBytes)
        let milliseconds = Int32(busyTimeout.inMilliseconds)
        do {
            try PrivateFiles.prepareFile(path, companions: ["-wal", "-shm", "-journal"])
        } catch {
            throw StateError(.unavailable, "cannot create SQLite database '\(path)': \(error)")
        }
        let limit = Self.journalSizeLimit
        let database = try Self.opening { () throws(StateError) in
            let database = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: milliseconds, journalSizeLimit: limit)
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS hub_state (
                    key TEXT PRIMARY KEY, value TEXT NOT NULL, version INTEGER NOT NULL,
                    shape INTEGER NOT NULL, expires_at INTEGER
                ) WITHOUT ROWID
                """)
            // Checkpoints are this store's job (below), not the committing writer's.
            try database.execute("PRAGMA wal_autocheckpoint=0")
            database.watchWAL()
            return database
        }
        frameBytes = try database.pageSize() + 24
        writer = Confined(database, label: "hub.state.sqlite.write")
        reader = Confined(
            try Self.opening { () throws(StateError) in
                try SQLiteDatabase(path: path, busyTimeoutMilliseconds: milliseconds, setsJournalMode: false, journalSizeLimit: limit)
            }, label: "hub.state.sqlite.read")
        checkpointer = Confined(
            try Self.opening { () throws(StateError) in
                try SQLiteDatabase(path: path, busyTimeoutMilliseconds: milliseconds, setsJournalMode: false, journalSizeLimit: limit)
            }, label: "hub.state.sqlite.checkpoint")
    }

    /// Opens a connection, trying again for up to about two seconds while the file is locked:
    /// several processes (or stores) opening one file at once can find it locked while another
    /// switches it to WAL or recovers its index, which SQLite's busy timeout does not always cover.
    /// Start-up only (it sleeps the calling thread between attempts).
    private static func opening(_ open: () throws(StateError) -> SQLiteDatabase) throws(StateError) -> SQLiteDatabase {
        var attempt = 0
        while true {
            do {
                return try open()
            } catch {
                attempt += 1
                guard attempt < 100, error.detail.contains("locked") || error.detail.contains("busy") else { throw error }
                usleep(20_000)
            }
        }
    }

    public var backend: String { "sqlite" }

    public var status: StateStoreStatus { health.withLock { $0 } }

    public func read(_ key: StateKey, now: Int64) async throws(StateError) -> StateRecord? {
        let generation = cache.generation
        let found = try await onLane(reader) { database throws(StateError) in
            var record: StateRecord?
            try database.run(
                "SELECT value, version, shape, expires_at FROM hub_state WHERE key = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
                [.text(key.rawValue), .integer(now)]
            ) { row in
                record = StateRecord(
                    bytes: row.bytes(0), version: row.integer(1), shape: Int(row.integer(2)),
                    expiresAt: row.isNull(3) ? nil : row.integer(3))
            }
            return record
        }
        if let found { cache.storeRead(found, for: key, generation: generation) }
        return found
    }

    public func recentRecord(_ key: StateKey, now: Int64) -> StateRecord? {
        cache.record(key, now: now)
    }

    public func write(
        _ key: StateKey, bytes: [UInt8], shape: Int, expected: Int64, expiresAt: Int64?, now: Int64, quota: StateQuota?
    ) async throws(StateError) -> Int64 {
        let cache = cache
        let version = try await writing { database throws(StateError) -> Int64 in
            let current = try Self.liveVersion(of: key, now: now, in: database)
            guard current.live == expected else {
                throw StateError(.conflict, "'\(key)' is at version \(current.live), not \(expected)", currentVersion: current.live)
            }
            if let quota {
                let usage = try Self.usage(under: quota, writing: key, now: now, in: database)
                if let refusal = quota.refusal(others: usage.others, own: usage.own, written: bytes.count, key: key) { throw refusal }
            }
            // An expired value's successor continues its version count, so a version is never reused.
            let version = current.stored + 1
            try database.run(
                "INSERT OR REPLACE INTO hub_state (key, value, version, shape, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                [.text(key.rawValue), .bytes(bytes), .integer(version), .integer(Int64(shape)), expiresAt.map { .integer($0) } ?? .null])
            return version
        } committed: { version in
            cache.storeWritten(StateRecord(bytes: bytes, version: version, shape: shape, expiresAt: expiresAt), for: key)
        }
        report(.changed(key, version: version))
        checkpointIfDue()
        return version
    }

    public func delete(_ key: StateKey, expected: Int64?) async throws(StateError) -> Bool {
        let cache = cache
        let removed = try await writing { database throws(StateError) -> Bool in
            let current = try Self.liveVersion(of: key, now: .min, in: database)
            guard current.stored > 0 else { return false }
            if let expected, current.stored != expected {
                throw StateError(
                    .conflict, "'\(key)' is at version \(current.stored), not \(expected)", currentVersion: current.stored)
            }
            return try database.run("DELETE FROM hub_state WHERE key = ?1", [.text(key.rawValue)]) > 0
        } committed: { _ in
            cache.remove(key)
        }
        if removed { report(.changed(key, version: 0)) }
        return removed
    }

    public func versions(of keys: [StateKey]) async throws(StateError) -> [StateKey: Int64] {
        try await onLane(reader) { database throws(StateError) in
            var found: [StateKey: Int64] = [:]
            for key in keys {
                try database.run("SELECT version FROM hub_state WHERE key = ?1", [.text(key.rawValue)]) { row in
                    found[key] = row.integer(0)
                }
            }
            return found
        }
    }

    public func records(withPrefix prefix: String, now: Int64) async throws(StateError) -> [(StateKey, StateRecord)] {
        try await onLane(reader) { database throws(StateError) in
            var found: [(StateKey, StateRecord)] = []
            try database.run(
                """
                SELECT key, value, version, shape, expires_at FROM hub_state
                WHERE substr(key, 1, length(?1)) = ?1 AND (expires_at IS NULL OR expires_at > ?2)
                """,
                [.text(prefix), .integer(now)]
            ) { row in
                guard let key = StateKey(rawValue: row.text(0)) else { return }
                found.append((key, StateRecord(
                    bytes: row.bytes(1), version: row.integer(2), shape: Int(row.integer(3)),
                    expiresAt: row.isNull(4) ? nil : row.integer(4))))
            }
            return found
        }
    }

    public func deleteAll(withPrefix prefix: String) async throws(StateError) -> Int {
        let cache = cache
        return try await writing { database throws(StateError) in
            try database.run("DELETE FROM hub_state WHERE substr(key, 1, length(?1)) = ?1", [.text(prefix)])
        } committed: { _ in
            cache.remove(withPrefix: prefix)
        }
    }

    public func purgeExpired(now: Int64) async throws(StateError) -> Int {
        let cache = cache
        return try await writing { database throws(StateError) in
            try database.run("DELETE FROM hub_state WHERE expires_at IS NOT NULL AND expires_at <= ?1", [.integer(now)])
        } committed: { _ in
            cache.removeExpired(now: now)
        }
    }

    public func observe(_ observer: @escaping @Sendable (StateStoreEvent) -> Void) {
        self.observer.set(observer)
    }

    public func close() {
        closed.withLock { $0 = true }
    }

    /// The version stored for `key` and the one that counts at `now` (0 when expired or absent).
    private static func liveVersion(of key: StateKey, now: Int64, in database: SQLiteDatabase) throws(StateError) -> (stored: Int64, live: Int64) {
        var result: (stored: Int64, live: Int64) = (0, 0)
        try database.run("SELECT version, expires_at FROM hub_state WHERE key = ?1", [.text(key.rawValue)]) { row in
            let expired = !row.isNull(1) && row.integer(1) <= now
            result = (row.integer(0), expired ? 0 : row.integer(0))
        }
        return result
    }

    /// Bytes of the live values under the quota's prefix other than `key`'s, and `key`'s own
    /// (a range of the primary key: the prefix's keys sort together).
    private static func usage(
        under quota: StateQuota, writing key: StateKey, now: Int64, in database: SQLiteDatabase
    ) throws(StateError) -> (others: Int, own: Int) {
        var usage = (others: 0, own: 0)
        try database.run(
            """
            SELECT coalesce(sum(CASE WHEN key = ?3 THEN 0 ELSE length(CAST(value AS BLOB)) END), 0),
                   coalesce(sum(CASE WHEN key = ?3 THEN length(CAST(value AS BLOB)) ELSE 0 END), 0)
            FROM hub_state WHERE key >= ?1 AND key < ?2 AND (expires_at IS NULL OR expires_at > ?4)
            """,
            [.text(quota.prefix), .text(quota.prefixEnd), .text(key.rawValue), .integer(now)]
        ) { row in
            usage = (Int(row.integer(0)), Int(row.integer(1)))
        }
        return usage
    }

    /// The bytes the store takes on disk: the database file and its write-ahead log.
    public func storedBytes() async throws(StateError) -> Int64? {
        Self.fileSize(path) + Self.fileSize(path + "-wal")
    }

    /// The size of the write-ahead log file now (0 when there is none).
    public var logFileBytes: Int64 { Self.fileSize(path + "-wal") }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Runs `body` on the write lane in one `BEGIN IMMEDIATE` transaction, then `committed`
    /// (still on the lane, so the cache changes in commit order). An error rolls it back. After
    /// the commit, a log past ``truncateCheckpointBytes`` is folded and truncated there and then.
    private func writing<Value: Sendable>(
        _ body: @escaping @Sendable (SQLiteDatabase) throws(StateError) -> Value,
        committed: @escaping @Sendable (Value) -> Void
    ) async throws(StateError) -> Value {
        let frameBytes = frameBytes, logFrames = logFrames, busyTimeout = busyTimeout
        return try await onLane(writer) { database throws(StateError) -> Value in
            try database.run("BEGIN IMMEDIATE", [])
            do throws(StateError) {
                let value = try body(database)
                try database.run("COMMIT", [])
                committed(value)
                if database.walFrames * frameBytes >= Self.truncateCheckpointBytes {
                    Self.foldLog(database, within: busyTimeout)
                }
                let frames = database.walFrames
                logFrames.withLock { $0 = frames }
                return value
            } catch {
                _ = try? database.run("ROLLBACK", [])
                throw error
            }
        }
    }

    private func onLane<Value: Sendable>(
        _ confined: Confined, _ body: @escaping @Sendable (SQLiteDatabase) throws(StateError) -> Value
    ) async throws(StateError) -> Value {
        guard !closed.withLock({ $0 }) else { throw StateError(.unavailable, "the state store is closed") }
        do {
            let value = try await confined.lane.run { () throws(StateError) -> Value in try body(confined.database) }
            health.withLock { $0 = StateStoreStatus(available: true) }
            return value
        } catch {
            if error.code == .unavailable { health.withLock { $0 = StateStoreStatus(available: false, detail: error.detail) } }
            throw error
        }
    }

    /// Folds the whole log into the database and truncates it (`TRUNCATE` checkpoint), on the
    /// write lane: no write runs meanwhile, so the log cannot grow past the threshold by more
    /// than the commit that crossed it. SQLite waits (the busy timeout) for readers still on
    /// older frames, but answers busy at once while the checkpoint lane's passive checkpoint
    /// runs: then it is tried again every millisecond until that one ends, for up to `limit`.
    /// A log it could not fold by then (a reader holding an old snapshot all along) is tried
    /// again after the next commit.
    private static func foldLog(_ database: SQLiteDatabase, within limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while true {
            guard let result = try? database.checkpoint("TRUNCATE"), !result.complete, ContinuousClock.now < deadline else { return }
            usleep(1_000)
        }
    }

    /// Starts a passive checkpoint on its own lane every ``checkpointInterval`` writes or when
    /// the log passes ``passiveCheckpointBytes`` (one at a time): the WAL is folded back into
    /// the database without the writer waiting for it.
    private func checkpointIfDue() {
        let logBytes = logFrames.withLock { $0 } * frameBytes
        let due = checkpointState.withLock { state -> Bool in
            state.writes += 1
            guard state.writes >= Self.checkpointInterval || logBytes >= Self.passiveCheckpointBytes, !state.running
            else { return false }
            state.writes = 0
            state.running = true
            return true
        }
        guard due else { return }
        let checkpointer = checkpointer, checkpointState = checkpointState
        Task {
            _ = try? await checkpointer.lane.run { () throws(StateError) in
                try checkpointer.database.execute("PRAGMA wal_checkpoint(PASSIVE)")
            }
            checkpointState.withLock { $0.running = false }
        }
    }

    private func report(_ event: StateStoreEvent) {
        observer.report(event)
    }
}
