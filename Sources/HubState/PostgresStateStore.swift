import HubEngine
import HubModel
import HubSync

/// The shared ``StateStore``: PostgreSQL through libpq, for replicas. A bounded pool of
/// connections (each on its own lane: libpq blocks), compare-and-set writes in one statement
/// that also sends `NOTIFY hub_state, '<key> <version>'`, and a listening connection
/// (``PostgresListener``) that turns every replica's writes into change events. A database
/// that goes away makes calls throw `unavailable` (never a crash, never a silent loss); the
/// pool reconnects by itself when it returns (a connection that failed meanwhile waits out its
/// retry delay only until another connection of the pool has connected).
///
/// The records it wrote and read last are kept in memory (``StateRecordCache``), but only as
/// the starting point of the next compare-and-set (``recentRecord(_:now:)``): another replica
/// may have written since, so reads always ask the database. A change notification naming
/// another version drops the held record.
public final class PostgresStateStore: StateStore {
    /// A connection and the lane it is confined to: every call runs on that serial lane, so
    /// the unchecked box is never touched by two threads at once.
    private final class Slot: @unchecked Sendable {
        let connection: PostgresConnection
        let lane: BlockingLane
        init(url: String, index: Int, reconnectDelay: Duration, pool: PostgresPoolConnects) {
            connection = PostgresConnection(url: url, retryDelay: reconnectDelay, pool: pool)
            lane = BlockingLane(label: "hub.state.postgres.\(index)")
        }
    }

    private let slots: [Slot]
    /// Calls queued or running per slot: a call goes to the least busy one.
    private let pending: Locked<[Int]>
    private let observer = StateObserverSlot()
    /// The last call's outcome; `nil` before the first (the change feed's connection tells then).
    private let health = Locked<StateStoreStatus?>(nil)
    private let closed = Locked(false)
    private let schemaReady = Locked(false)
    private let listener: PostgresListener
    private let cache: StateRecordCache

    /// A store on the database at `url` (a libpq connection string or `postgresql://` URL) with
    /// `poolSize` connections. Connects lazily: a database that is down at start is no start-up
    /// error (the server serves what needs no state and recovers when it comes up).
    /// `cacheBytes`: most bytes of values kept for ``recentRecord(_:now:)`` (0: none).
    /// `reconnectDelay`: how long a connection whose attempt to connect failed waits before its
    /// next one, unless another connection of the pool has connected since (the database is back).
    public init(url: String, poolSize: Int = 4, cacheBytes: Int = 16 << 20, reconnectDelay: Duration = .milliseconds(250)) {
        let connects = PostgresPoolConnects()
        slots = (0..<max(1, poolSize)).map { Slot(url: url, index: $0, reconnectDelay: reconnectDelay, pool: connects) }
        pending = Locked(Array(repeating: 0, count: max(1, poolSize)))
        let observer = observer
        let cache = StateRecordCache(maxBytes: cacheBytes)
        self.cache = cache
        listener = PostgresListener(url: url) { event in
            switch event {
            case .changed(let key, let version): cache.remove(key, unlessAt: version)
            case .resync: cache.removeAll()
            }
            observer.report(event)
        }
        listener.start()
    }

    deinit {
        listener.stop()
    }

    public var backend: String { "postgres" }

    public var status: StateStoreStatus {
        let listening = listener.isConnected
        var status = health.withLock { $0 } ?? StateStoreStatus(available: listening, detail: listening ? nil : "not connected yet")
        status.changeFeedConnected = listening
        return status
    }

    /// Whether the change feed's connection is up.
    public var isListening: Bool { listener.isConnected }

    public func read(_ key: StateKey, now: Int64) async throws(StateError) -> StateRecord? {
        let generation = cache.generation
        let rows = try await query(
            "SELECT value, version, shape, expires_at FROM hub_state WHERE key = $1 AND (expires_at IS NULL OR expires_at > $2)",
            [key.rawValue, String(now)])
        guard let row = rows.first, let record = Self.record(row, from: 0) else { return nil }
        cache.storeRead(record, for: key, generation: generation)
        return record
    }

    public func recentRecord(_ key: StateKey, now: Int64) -> StateRecord? {
        cache.record(key, now: now)
    }

    public func write(
        _ key: StateKey, bytes: [UInt8], shape: Int, expected: Int64, expiresAt: Int64?, now: Int64, quota: StateQuota?
    ) async throws(StateError) -> Int64 {
        let value = String(decoding: bytes, as: UTF8.self)
        let expiry = expiresAt.map(String.init)
        let statement: (sql: String, parameters: [String?])
        if expected == 0 {
            // New, or replacing an expired value (its version count continues).
            statement = (
                """
                WITH written AS (
                    INSERT INTO hub_state (key, value, version, shape, expires_at) VALUES ($1, $2, 1, $3, $4)
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, version = hub_state.version + 1,
                        shape = EXCLUDED.shape, expires_at = EXCLUDED.expires_at
                    WHERE hub_state.expires_at IS NOT NULL AND hub_state.expires_at <= $5
                    RETURNING version)
                SELECT version, pg_notify('\(PostgresListener.channel)', $1 || ' ' || version) FROM written
                """, [key.rawValue, value, String(shape), expiry, String(now)])
        } else {
            statement = (
                """
                WITH written AS (
                    UPDATE hub_state SET value = $2, version = version + 1, shape = $3, expires_at = $4
                    WHERE key = $1 AND version = $5 AND (expires_at IS NULL OR expires_at > $6)
                    RETURNING version)
                SELECT version, pg_notify('\(PostgresListener.channel)', $1 || ' ' || version) FROM written
                """, [key.rawValue, value, String(shape), expiry, String(expected), String(now)])
        }
        let rows: PostgresConnection.Rows
        if let quota {
            do {
                rows = try await quotaWrite(statement, key: key, written: bytes.count, expected: expected, now: now, quota: quota)
            } catch {
                if error.code == .conflict { cache.remove(key) }
                throw error
            }
        } else {
            rows = try await query(statement.sql, statement.parameters, write: true)
        }
        if let version = rows.first?.first.flatMap({ $0.flatMap { Int64($0) } }) {
            cache.storeWritten(StateRecord(bytes: bytes, version: version, shape: shape, expiresAt: expiresAt), for: key)
            return version
        }
        cache.remove(key)
        let current = try await read(key, now: now)?.version ?? 0
        throw StateError(.conflict, "'\(key)' is at version \(current), not \(expected)", currentVersion: current)
    }

    public func delete(_ key: StateKey, expected: Int64?) async throws(StateError) -> Bool {
        let rows = try await query(
            """
            WITH removed AS (DELETE FROM hub_state WHERE key = $1 AND ($2::bigint IS NULL OR version = $2::bigint) RETURNING key)
            SELECT pg_notify('\(PostgresListener.channel)', $1 || ' 0') FROM removed
            """, [key.rawValue, expected.map(String.init)], write: true)
        cache.remove(key)
        if !rows.isEmpty { return true }
        guard expected != nil, let current = try await versions(of: [key])[key] else { return false }
        throw StateError(.conflict, "'\(key)' is at version \(current), not \(expected ?? 0)", currentVersion: current)
    }

    public func versions(of keys: [StateKey]) async throws(StateError) -> [StateKey: Int64] {
        guard !keys.isEmpty else { return [:] }
        let list = JSONValue.array(keys.map { .string($0.rawValue) }).jsonBytes
        let rows = try await query(
            "SELECT key, version FROM hub_state WHERE key IN (SELECT jsonb_array_elements_text($1::jsonb))",
            [String(decoding: list, as: UTF8.self)])
        var found: [StateKey: Int64] = [:]
        for row in rows {
            if let key = row[0].flatMap(StateKey.init(rawValue:)), let version = row[1].flatMap({ Int64($0) }) { found[key] = version }
        }
        return found
    }

    public func records(withPrefix prefix: String, now: Int64) async throws(StateError) -> [(StateKey, StateRecord)] {
        let rows = try await query(
            """
            SELECT key, value, version, shape, expires_at FROM hub_state
            WHERE left(key, length($1)) = $1 AND (expires_at IS NULL OR expires_at > $2)
            """, [prefix, String(now)])
        return rows.compactMap { row in
            guard let key = row[0].flatMap(StateKey.init(rawValue:)), let record = Self.record(row, from: 1) else { return nil }
            return (key, record)
        }
    }

    public func deleteAll(withPrefix prefix: String) async throws(StateError) -> Int {
        defer { cache.remove(withPrefix: prefix) }
        return try await query("WITH removed AS (DELETE FROM hub_state WHERE left(key, length($1)) = $1 RETURNING 1) SELECT count(*) FROM removed", [prefix])
            .first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }

    public func purgeExpired(now: Int64) async throws(StateError) -> Int {
        defer { cache.removeExpired(now: now) }
        return try await query(
            "WITH removed AS (DELETE FROM hub_state WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING 1) SELECT count(*) FROM removed",
            [String(now)]
        ).first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }

    public func observe(_ observer: @escaping @Sendable (StateStoreEvent) -> Void) {
        self.observer.set(observer)
    }

    public func close() {
        closed.withLock { $0 = true }
        listener.stop()
    }

    /// `write` under a quota: one transaction that takes the prefix's advisory lock (so the
    /// writers of one scope, on every replica, take turns), sums the prefix's live values in a
    /// statement that sees every write committed before the lock was granted, and writes only
    /// when the quota allows it. A version that is not `expected` answers as a conflict first.
    private func quotaWrite(
        _ statement: (sql: String, parameters: [String?]), key: StateKey, written: Int, expected: Int64, now: Int64, quota: StateQuota
    ) async throws(StateError) -> PostgresConnection.Rows {
        let lock = "BEGIN; SELECT pg_advisory_xact_lock(\(Self.quotaLockClass), \(Self.lockKey(quota.prefix)))"
        return try await session { connection throws(StateError) -> PostgresConnection.Rows in
            do throws(StateError) {
                try connection.execute(lock)
                let usage = try connection.query(
                    """
                    SELECT coalesce(sum(octet_length(value)) FILTER (WHERE key <> $3), 0),
                           coalesce(sum(octet_length(value)) FILTER (WHERE key = $3), 0),
                           coalesce(max(version) FILTER (WHERE key = $3), 0)
                    FROM hub_state
                    WHERE key COLLATE "C" >= $1 AND key COLLATE "C" < $2 AND (expires_at IS NULL OR expires_at > $4)
                    """, [quota.prefix, quota.prefixEnd, key.rawValue, String(now)])
                let numbers = (usage.first ?? []).map { $0.flatMap { Int64($0) } ?? 0 }
                let others = Int(numbers.first ?? 0), own = Int(numbers.dropFirst().first ?? 0), live = numbers.last ?? 0
                guard live == expected else {
                    throw StateError(.conflict, "'\(key)' is at version \(live), not \(expected)", currentVersion: live)
                }
                if let refusal = quota.refusal(others: others, own: own, written: written, key: key) { throw refusal }
                let rows = try connection.query(statement.sql, statement.parameters)
                // A lost answer to COMMIT may have committed: outcome unknown, not unavailable.
                _ = try connection.query("COMMIT", [], write: true)
                return rows
            } catch {
                // Ends the transaction (an aborted one too); a lost connection has none left.
                if connection.isOpen { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// The first key of the quota locks' advisory lock pairs (the schema's lock is a single key).
    private static let quotaLockClass: Int32 = 7274798

    /// A prefix's advisory lock (FNV-1a, folded to 32 bits): prefixes that share one only wait
    /// for each other.
    private static func lockKey(_ prefix: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in prefix.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int32(bitPattern: hash)
    }

    /// `pg_total_relation_size` of the table: its rows, indexes and TOAST.
    public func storedBytes() async throws(StateError) -> Int64? {
        try await query("SELECT pg_total_relation_size('hub_state')", []).first?.first.flatMap { $0.flatMap { Int64($0) } }
    }

    /// Creates the table once per process (serialized across replicas by an advisory lock), and
    /// the byte-ordered index the quotas' prefix sums use.
    private static let schema = """
        SET client_min_messages TO warning;
        BEGIN;
        SELECT pg_advisory_xact_lock(7274797);
        CREATE TABLE IF NOT EXISTS hub_state (
            key text PRIMARY KEY, value text NOT NULL, version bigint NOT NULL, shape integer NOT NULL, expires_at bigint);
        CREATE INDEX IF NOT EXISTS hub_state_key_bytes ON hub_state (key COLLATE "C");
        COMMIT;
        """

    /// Runs `sql` on the least busy connection. `write`: a lost answer is `outcomeUnknown`
    /// (``PostgresConnection/query(_:_:write:)``).
    private func query(_ sql: String, _ parameters: [String?], write: Bool = false) async throws(StateError) -> PostgresConnection.Rows {
        try await session { connection throws(StateError) in try connection.query(sql, parameters, write: write) }
    }

    /// Runs `body` with one pooled connection, on its lane (the schema made first).
    private func session(
        _ body: @escaping @Sendable (PostgresConnection) throws(StateError) -> PostgresConnection.Rows
    ) async throws(StateError) -> PostgresConnection.Rows {
        guard !closed.withLock({ $0 }) else { throw StateError(.unavailable, "the state store is closed") }
        let index = pending.withLock { counts in
            let index = counts.indices.min { counts[$0] < counts[$1] } ?? 0
            counts[index] += 1
            return index
        }
        defer { pending.withLock { $0[index] -= 1 } }
        let slot = slots[index]
        let schemaReady = schemaReady
        do {
            let rows = try await slot.lane.run { () throws(StateError) -> PostgresConnection.Rows in
                if !schemaReady.withLock({ $0 }) {
                    try slot.connection.execute(Self.schema)
                    schemaReady.withLock { $0 = true }
                }
                return try body(slot.connection)
            }
            health.withLock { $0 = StateStoreStatus(available: true) }
            return rows
        } catch {
            health.withLock { $0 = StateStoreStatus(available: false, detail: error.detail) }
            throw error
        }
    }

    private static func record(_ row: [String?], from start: Int) -> StateRecord? {
        guard let value = row[start], let version = row[start + 1].flatMap({ Int64($0) }),
            let shape = row[start + 2].flatMap({ Int($0) })
        else { return nil }
        return StateRecord(
            bytes: Array(value.utf8), version: version, shape: shape, expiresAt: row[start + 3].flatMap { Int64($0) })
    }
}
