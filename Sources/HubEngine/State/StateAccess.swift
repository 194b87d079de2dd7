import HubModel
import HubPrimitives

/// What a content operation (``ContentContext/state``) or an action (``ActionContext/state``)
/// uses to keep state that outlasts the process: read a value, write it only if nobody changed
/// it since (compare-and-set), update it in a retry loop, delete it.
///
/// The engine follows what operations read: when a key changes (an action here, or another
/// replica, for a shared store), every session whose operations read it re-runs its chain from
/// the first operation that did, and pushes the new view to its listeners. An operation that
/// reads state should not be memoizable (its ``ContentOperation/memoizationKey(context:)`` nil,
/// the default).
public struct StateAccess: Sendable {
    let store: any StateStore
    let settings: StateSettings
    let sessionID: String
    /// The session's verified user (``StateScope/user``); `nil`: anonymous.
    let user: HubUser?
    /// Where reads (content operations) or writes (actions) are recorded.
    let log: StateTouchLog?
    let operationIndex: Int
    let counters: EngineCounters
    let wallClock: @Sendable () -> Int64
    /// What the session read so far: a key it already follows is handed out as that key
    /// (``key(_:in:)``), so the session, its watchers and the store keep one copy of its text.
    let followed: [StateRead]

    init(
        store: any StateStore, settings: StateSettings, sessionID: String, user: HubUser? = nil, log: StateTouchLog?,
        operationIndex: Int, counters: EngineCounters, wallClock: @escaping @Sendable () -> Int64, followed: [StateRead] = []
    ) {
        self.followed = followed
        self.store = store
        self.settings = settings
        self.sessionID = sessionID
        self.user = user
        self.log = log
        self.operationIndex = operationIndex
        self.counters = counters
        self.wallClock = wallClock
    }

    /// A standalone access (tests, tools): nothing is recorded.
    public init(store: any StateStore, sessionID: String, user: HubUser? = nil, settings: StateSettings = StateSettings()) {
        self.init(
            store: store, settings: settings, sessionID: sessionID, user: user, log: nil, operationIndex: 0,
            counters: EngineCounters(), wallClock: EngineDefaults.systemWallClock)
    }

    /// The key of `name` in `scope` for this session.
    public func key(_ name: String, in scope: StateScope = .session) throws(StateError) -> StateKey {
        let key = try StateKey(name, in: scope, sessionID: sessionID, user: user)
        // The same key, as the session already holds it: the store keeps the key of a value's
        // first write, so an action's write of a key the view read shares the read's text.
        // Looked for among the first reads only: a session that reads many keys costs no more
        // per access than one that reads a few.
        return followed.prefix(Self.followedKeysLookedAt).first { $0.key == key }?.key ?? key
    }

    /// How many of the session's reads ``key(_:in:)`` looks through for the key it makes.
    static let followedKeysLookedAt = 32

    /// The value of `name`, migrated to `shape`; `nil` when there is none (or it was dropped).
    /// A store that cannot be read throws `unavailable`, or answers `nil` under
    /// ``StateReadFailurePolicy/serveWithoutState``.
    public func read(_ name: String, in scope: StateScope = .session, shape: StateShape = .initial) async throws -> StateValue? {
        let key = try key(name, in: scope)
        do {
            let (value, version) = try await readCurrent(key, shape: shape)
            log?.record(operation: operationIndex, key: key, version: version)
            return value.map { StateValue(value: $0, version: version) }
        } catch {
            guard error.code == .unavailable, settings.onReadError == .serveWithoutState else { throw error }
            counters.countStateReadFallback()
            // Followed at version 0: the store's next change to the key (or its recovery) re-runs the view.
            log?.record(operation: operationIndex, key: key, version: 0, unanswered: true)
            return nil
        }
    }

    /// Writes `value` if the stored version is still `version` (0: there is none); returns the
    /// new version. Throws `conflict` (read again and retry), `tooLarge` (the value is over
    /// `state.maxValueBytes`, or the scope's values would pass `state.maxSessionBytes` /
    /// `state.maxSubjectBytes`), or `unavailable`.
    @discardableResult
    public func write(
        _ name: String, _ value: JSONValue, in scope: StateScope = .session, expecting version: Int64,
        shape: StateShape = .initial, ttl: Duration? = nil
    ) async throws -> Int64 {
        let key = try key(name, in: scope)
        return try await write(key, value, in: scope, expecting: version, shape: shape, ttl: ttl ?? defaultTTL(scope))
    }

    /// Reads `name`, lets `body` change it (`nil`: delete), and writes it back if nobody wrote
    /// it meanwhile, retrying on conflicts. `body` returns `false` to leave the value as it is.
    /// Returns the value now stored (`nil` when there is none).
    ///
    /// The first attempt starts from the record the store holds in memory
    /// (``StateStore/recentRecord(_:now:)``, the value this process last wrote or read) when it
    /// has one, so a session's repeated changes cost one database call each; the compare-and-set
    /// write checks that it is still current (a conflict reads the database and tries again), and
    /// a `body` that changes nothing is asked again on a fresh read before the answer is trusted.
    @discardableResult
    public func update(
        _ name: String, in scope: StateScope = .session, shape: StateShape = .initial, ttl: Duration? = nil,
        _ body: (inout JSONValue?) throws -> Bool
    ) async throws -> StateValue? {
        let key = try key(name, in: scope)
        var fromMemory = true
        var attempt = 0
        while attempt < max(1, settings.maxUpdateAttempts) {
            // After a conflict, a random pause that grows with the attempts: writers that keep
            // colliding spread out instead of colliding again in lockstep.
            if attempt > 0 { try? await Task.sleep(for: .microseconds(Int.random(in: 0...(200 * min(attempt, 50))))) }
            let recent = fromMemory ? store.recentRecord(key, now: wallClock()) : nil
            fromMemory = false
            let current: JSONValue?, version: Int64
            if let recent { (current, version) = decoded(recent, shape: shape) } else {
                (current, version) = try await readCurrent(key, shape: shape)
            }
            var value = current
            guard try body(&value) else {
                // Nothing to write: only an answer read from the store itself is final.
                if recent != nil { continue }
                return current.map { StateValue(value: $0, version: version) }
            }
            let ttl = ttl ?? defaultTTL(scope)
            do {
                guard let value else {
                    if version > 0 {
                        log?.beginWriting(key, making: 0)
                        defer { log?.endWriting(key, making: 0) }
                        _ = try await store.delete(key, expected: version)
                        log?.record(operation: operationIndex, key: key, version: 0, wrote: true, replaced: version)
                    }
                    return nil
                }
                let written = try await write(key, value, in: scope, expecting: version, shape: shape, ttl: ttl)
                return StateValue(value: value, version: written)
            } catch {
                guard error.code == .conflict else { throw error }
            }
            attempt += 1
        }
        throw StateError(.conflict, "'\(key)' kept changing: \(settings.maxUpdateAttempts) attempts conflicted")
    }

    /// Deletes `name` (when its version is `version`, if given); returns whether there was a value.
    @discardableResult
    public func delete(_ name: String, in scope: StateScope = .session, expecting version: Int64? = nil) async throws -> Bool {
        let key = try key(name, in: scope)
        log?.beginWriting(key, making: 0)
        defer { log?.endWriting(key, making: 0) }
        let removed = try await store.delete(key, expected: version)
        if removed { log?.record(operation: operationIndex, key: key, version: 0, wrote: true) }
        return removed
    }

    private func defaultTTL(_ scope: StateScope) -> Duration? {
        if case .session = scope { return settings.sessionValueTTL }
        return nil
    }

    /// Writes `value` under `key`, within `state.maxValueBytes` and the scope's quota (``StateQuota``).
    private func write(
        _ key: StateKey, _ value: JSONValue, in scope: StateScope, expecting version: Int64, shape: StateShape, ttl: Duration?
    ) async throws(StateError) -> Int64 {
        let bytes = value.jsonBytes
        guard bytes.count <= settings.maxValueBytes else {
            throw StateError(
                .tooLarge, "the value of '\(key)' is \(bytes.count) bytes; state.maxValueBytes is \(settings.maxValueBytes)")
        }
        let now = wallClock()
        let expiresAt = ttl.map { now + max(1, Int64($0.inSeconds.rounded(.up))) }
        let quota = StateQuota(scope: scope, sessionID: sessionID, user: user, settings: settings)
        // Until the write is recorded, its change report (which may come first) is this run's own:
        // a write expecting version N makes N + 1 (over an expired value the store continues that
        // value's count instead, and such an early report is taken for news, as before).
        log?.beginWriting(key, making: version + 1)
        defer { log?.endWriting(key, making: version + 1) }
        let written = try await store.write(
            key, bytes: bytes, shape: shape.version, expected: version, expiresAt: expiresAt, now: now, quota: quota)
        log?.record(operation: operationIndex, key: key, version: written, wrote: true, replaced: version)
        return written
    }

    /// The stored value in `shape` (nil when absent, unreadable or dropped) and the stored version.
    private func readCurrent(_ key: StateKey, shape: StateShape) async throws(StateError) -> (JSONValue?, Int64) {
        guard let record = try await store.read(key, now: wallClock()) else { return (nil, 0) }
        return decoded(record, shape: shape)
    }

    /// A stored record's value in `shape` (nil when unreadable or dropped) and its version.
    private func decoded(_ record: StateRecord, shape: StateShape) -> (JSONValue?, Int64) {
        guard let value = try? JSONParser().parse(record.bytes) else {
            counters.countStateMigration(migrated: false)
            return (nil, record.version)
        }
        if record.shape == shape.version { return (value, record.version) }
        guard record.shape < shape.version, let migrated = shape.migrate?(record.shape, value) else {
            counters.countStateMigration(migrated: false)
            return (nil, record.version)
        }
        counters.countStateMigration(migrated: true)
        return (migrated, record.version)
    }
}
