import HubSync

/// A ``StateStore`` in this process's memory: for tests, and for those who want state to last
/// only as long as the process (`"state": {"backend": "memory"}`). Bounded by `maxEntries`:
/// a write of a new key past it fails as `unavailable` (values are never evicted silently).
public final class MemoryStateStore: StateStore {
    private struct State {
        var records: [StateKey: StateRecord] = [:]
        var observer: (@Sendable (StateStoreEvent) -> Void)?
        var closed = false
    }

    private let state = Locked(State())
    /// Most keys held at once.
    public let maxEntries: Int

    public init(maxEntries: Int = 1_000_000) {
        self.maxEntries = maxEntries
    }

    public var backend: String { "memory" }

    public var status: StateStoreStatus {
        state.withLock { $0.closed ? StateStoreStatus(available: false, detail: "closed") : StateStoreStatus(available: true) }
    }

    /// Keys held now (expired ones included until purged).
    public var count: Int { state.withLock { $0.records.count } }

    public func read(_ key: StateKey, now: Int64) async throws(StateError) -> StateRecord? {
        try state.withLock { (state) throws(StateError) -> StateRecord? in
            try Self.checkOpen(state)
            guard let record = state.records[key], !record.isExpired(now: now) else { return nil }
            return record
        }
    }

    public func write(
        _ key: StateKey, bytes: [UInt8], shape: Int, expected: Int64, expiresAt: Int64?, now: Int64
    ) async throws(StateError) -> Int64 {
        let (version, observer) = try state.withLock {
            (state) throws(StateError) -> (Int64, (@Sendable (StateStoreEvent) -> Void)?) in
            try Self.checkOpen(state)
            let existing = state.records[key]
            let current = existing.map { $0.isExpired(now: now) ? 0 : $0.version } ?? 0
            guard current == expected else {
                throw StateError(.conflict, "'\(key)' is at version \(current), not \(expected)", currentVersion: current)
            }
            if existing == nil, state.records.count >= maxEntries {
                throw StateError(.unavailable, "the memory state store holds its maximum of \(maxEntries) keys")
            }
            // An expired value's successor continues its version count, so a version is never reused.
            let version = (existing?.version ?? 0) + 1
            state.records[key] = StateRecord(bytes: bytes, version: version, shape: shape, expiresAt: expiresAt)
            return (version, state.observer)
        }
        observer?(.changed(key, version: version))
        return version
    }

    public func delete(_ key: StateKey, expected: Int64?) async throws(StateError) -> Bool {
        let (removed, observer) = try state.withLock {
            (state) throws(StateError) -> (Bool, (@Sendable (StateStoreEvent) -> Void)?) in
            try Self.checkOpen(state)
            guard let existing = state.records[key] else { return (false, nil) }
            if let expected, existing.version != expected {
                throw StateError(
                    .conflict, "'\(key)' is at version \(existing.version), not \(expected)", currentVersion: existing.version)
            }
            state.records[key] = nil
            return (true, state.observer)
        }
        if removed { observer?(.changed(key, version: 0)) }
        return removed
    }

    public func versions(of keys: [StateKey]) async throws(StateError) -> [StateKey: Int64] {
        try state.withLock { (state) throws(StateError) -> [StateKey: Int64] in
            try Self.checkOpen(state)
            var found: [StateKey: Int64] = [:]
            for key in keys { if let record = state.records[key] { found[key] = record.version } }
            return found
        }
    }

    public func records(withPrefix prefix: String, now: Int64) async throws(StateError) -> [(StateKey, StateRecord)] {
        try state.withLock { (state) throws(StateError) -> [(StateKey, StateRecord)] in
            try Self.checkOpen(state)
            return state.records.filter { $0.key.rawValue.hasPrefix(prefix) && !$0.value.isExpired(now: now) }
                .map { ($0.key, $0.value) }
        }
    }

    public func deleteAll(withPrefix prefix: String) async throws(StateError) -> Int {
        try state.withLock { (state) throws(StateError) -> Int in
            try Self.checkOpen(state)
            let before = state.records.count
            state.records = state.records.filter { !$0.key.rawValue.hasPrefix(prefix) }
            return before - state.records.count
        }
    }

    public func purgeExpired(now: Int64) async throws(StateError) -> Int {
        try state.withLock { (state) throws(StateError) -> Int in
            try Self.checkOpen(state)
            let before = state.records.count
            state.records = state.records.filter { !$0.value.isExpired(now: now) }
            return before - state.records.count
        }
    }

    public func observe(_ observer: @escaping @Sendable (StateStoreEvent) -> Void) {
        state.withLock { $0.observer = observer }
    }

    public func close() {
        state.withLock { $0.closed = true }
    }

    private static func checkOpen(_ state: State) throws(StateError) {
        if state.closed { throw StateError(.unavailable, "the state store is closed") }
    }
}
