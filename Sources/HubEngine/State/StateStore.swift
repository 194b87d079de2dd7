/// Where operations' and actions' state lives (``StateAccess`` is what they call). Values are
/// JSON text with a version: a write names the version it read and succeeds only if that is
/// still the stored one (compare-and-set), so concurrent writers never lose each other's work.
///
/// Implementations: ``MemoryStateStore`` here; SQLite and PostgreSQL in HubState. Every method
/// may be called from any task; none blocks the caller's thread on I/O. Errors are
/// ``StateError``s (`unavailable` when the backing database cannot be reached).
public protocol StateStore: Sendable {
    /// `memory`, `sqlite` or `postgres`: the metrics' `backend` label.
    var backend: String { get }

    /// Whether the store can serve now (for `/ready`).
    var status: StateStoreStatus { get }

    /// The value of `key`, or `nil` (none, or expired at `now`, seconds since the epoch).
    func read(_ key: StateKey, now: Int64) async throws(StateError) -> StateRecord?

    /// Stores `bytes` under `key` when the stored version is `expected` (0: no value, an
    /// expired one counts as none); returns the new version. Throws `conflict` otherwise.
    /// With a `quota`, throws `tooLarge` (and stores nothing) when the write would take the
    /// values under its prefix past it (``StateQuota/refusal(others:own:written:key:)``),
    /// checked atomically with the compare-and-set: concurrent writers to one prefix cannot
    /// pass it together. A version mismatch is reported as `conflict` first.
    /// Reports ``StateStoreEvent/changed(_:version:)`` to the observer (every replica's, for a
    /// shared store).
    func write(
        _ key: StateKey, bytes: [UInt8], shape: Int, expected: Int64, expiresAt: Int64?, now: Int64, quota: StateQuota?
    ) async throws(StateError) -> Int64

    /// Removes `key` when its version is `expected` (`nil`: whatever it is); returns whether a
    /// value was removed. Reports version 0 to the observer.
    func delete(_ key: StateKey, expected: Int64?) async throws(StateError) -> Bool

    /// The stored versions of `keys` (absent keys are left out), for repairing after a
    /// ``StateStoreEvent/resync``.
    func versions(of keys: [StateKey]) async throws(StateError) -> [StateKey: Int64]

    /// Every unexpired value whose key starts with `prefix` (the engine reads `revoked/` at start).
    func records(withPrefix prefix: String, now: Int64) async throws(StateError) -> [(StateKey, StateRecord)]

    /// Removes every value whose key starts with `prefix` (a revoked session's state); returns how many.
    func deleteAll(withPrefix prefix: String) async throws(StateError) -> Int

    /// Removes values expired at `now`; returns how many.
    func purgeExpired(now: Int64) async throws(StateError) -> Int

    /// The record of `key` as this store last wrote or read it, answered from memory without
    /// asking the database; `nil` when none is held (or it expired at `now`). It may be stale (a
    /// shared store's other replicas write too): ``StateAccess/update(_:in:shape:ttl:_:)`` starts
    /// a compare-and-set from it, and the write checks the version. The default holds nothing.
    func recentRecord(_ key: StateKey, now: Int64) -> StateRecord?

    /// The bytes the store's data takes: the database files (SQLite), the table (PostgreSQL),
    /// the values and keys (memory); `nil` when the store cannot tell. Asks the database: call it
    /// now and then (the server samples it every few seconds for `hub_state_bytes`), never per
    /// request. The default is `nil`.
    func storedBytes() async throws(StateError) -> Int64?

    /// Sets the one observer of changes (the engine's); events may arrive on any thread.
    func observe(_ observer: @escaping @Sendable (StateStoreEvent) -> Void)

    /// Closes connections and stops background work; later calls throw `unavailable`.
    func close()
}

extension StateStore {
    /// A write without a quota (the engine's own keys, tools, tests).
    public func write(
        _ key: StateKey, bytes: [UInt8], shape: Int, expected: Int64, expiresAt: Int64?, now: Int64
    ) async throws(StateError) -> Int64 {
        try await write(key, bytes: bytes, shape: shape, expected: expected, expiresAt: expiresAt, now: now, quota: nil)
    }

    public func recentRecord(_ key: StateKey, now: Int64) -> StateRecord? { nil }

    public func storedBytes() async throws(StateError) -> Int64? { nil }
}
