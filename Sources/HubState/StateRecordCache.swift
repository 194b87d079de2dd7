import HubEngine
import HubSync

/// The records a store last wrote or read, kept in memory as the starting point of the next
/// compare-and-set (``StateStore/recentRecord(_:now:)``): an update of a value the process
/// holds needs no read, and the write checks that it is still current (another process or
/// replica may have written). Never an answer to a read. Bounded by bytes; the oldest entries
/// go first.
///
/// A read fills the cache only when no write was made since it started (``generation``): a value
/// read before a write committed never replaces what that write stored.
final class StateRecordCache: Sendable {
    private struct Entry: Sendable {
        var record: StateRecord
        var stamp: UInt64
    }

    private struct State: Sendable {
        var entries: [StateKey: Entry] = [:]
        /// Keys in the order they were stored, with the stamp they were stored with (an entry
        /// stored again later has a newer stamp: its older place is skipped when evicting).
        var order: [(key: StateKey, stamp: UInt64)] = []
        var orderStart = 0
        var bytes = 0
        var nextStamp: UInt64 = 0
        /// Changes with every write, delete or clear.
        var generation: UInt64 = 0

        /// Drops `key`'s entry and its bytes (its place in ``order`` is skipped when evicting).
        mutating func forget(_ key: StateKey) {
            if let old = entries.removeValue(forKey: key) { bytes -= old.record.bytes.count }
        }
    }

    private let state = Locked(State())
    /// Most bytes of values held (keys and bookkeeping come on top).
    let maxBytes: Int

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// The record held for `key`, unless it has expired at `now`.
    func record(_ key: StateKey, now: Int64) -> StateRecord? {
        state.withLock { state in
            guard let record = state.entries[key]?.record, !record.isExpired(now: now) else { return nil }
            return record
        }
    }

    /// The generation now: pass it to ``storeRead(_:for:generation:)`` after reading the database.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Keeps what a read found, when nothing was written since `generation`.
    func storeRead(_ record: StateRecord, for key: StateKey, generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            Self.store(record, for: key, in: &state, maxBytes: maxBytes)
        }
    }

    /// Keeps what a write committed (call it in commit order).
    func storeWritten(_ record: StateRecord, for key: StateKey) {
        state.withLock { state in
            state.generation &+= 1
            Self.store(record, for: key, in: &state, maxBytes: maxBytes)
        }
    }

    /// Forgets `key` (deleted).
    func remove(_ key: StateKey) {
        state.withLock { state in
            state.generation &+= 1
            state.forget(key)
        }
    }

    /// Forgets `key` unless the record held is at `version` (a change feed reported that
    /// version), as ``remove(_:)`` does (a read in flight is not kept either): checked and
    /// removed under one lock, so a write that stores its record between a separate check and
    /// removal is never dropped by its own notification.
    func remove(_ key: StateKey, unlessAt version: Int64) {
        state.withLock { state in
            if state.entries[key]?.record.version == version { return }
            state.generation &+= 1
            state.forget(key)
        }
    }

    /// Forgets every key starting with `prefix`.
    func remove(withPrefix prefix: String) {
        state.withLock { state in
            state.generation &+= 1
            for key in state.entries.keys where key.rawValue.hasPrefix(prefix) {
                state.forget(key)
            }
        }
    }

    /// Forgets the records expired at `now` (purged from the database).
    func removeExpired(now: Int64) {
        state.withLock { state in
            state.generation &+= 1
            for (key, entry) in state.entries where entry.record.isExpired(now: now) {
                state.entries[key] = nil
                state.bytes -= entry.record.bytes.count
            }
        }
    }

    /// Forgets everything (another writer changed the data).
    func removeAll() {
        state.withLock { state in
            let generation = state.generation &+ 1
            state = State()
            state.generation = generation
        }
    }

    /// Keys held now.
    var count: Int { state.withLock { $0.entries.count } }

    private static func store(_ record: StateRecord, for key: StateKey, in state: inout State, maxBytes: Int) {
        state.forget(key)
        guard record.bytes.count <= maxBytes else { return }
        state.nextStamp &+= 1
        state.entries[key] = Entry(record: record, stamp: state.nextStamp)
        state.order.append((key, state.nextStamp))
        state.bytes += record.bytes.count
        while state.bytes > maxBytes, state.orderStart < state.order.count {
            let oldest = state.order[state.orderStart]
            state.orderStart += 1
            if let entry = state.entries[oldest.key], entry.stamp == oldest.stamp {
                state.entries[oldest.key] = nil
                state.bytes -= entry.record.bytes.count
            }
        }
        // Places of keys stored again or removed pile up: drop them once they are most of the list.
        if state.orderStart > 1024 || state.order.count - state.orderStart > 2 * state.entries.count + 1024 {
            state.order = state.order[state.orderStart...].filter { state.entries[$0.key]?.stamp == $0.stamp }
            state.orderStart = 0
        }
    }
}
