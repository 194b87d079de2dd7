import HubSync

/// A ``StateStore`` in this process's memory: for tests, and for those who want state to last
/// only as long as the process (`"state": {"backend": "memory"}`). Bounded by `maxEntries`:
/// a write of a new key past it fails as `unavailable` (values are never evicted silently).
public final class MemoryStateStore: StateStore {
    private struct State {
        var records: [StateKey: StateRecord] = [:]
        /// The keys of each group (``MemoryStateStore/group(of:)``), for the quota's sum.
        var groups: [Substring: Set<StateKey>] = [:]
        /// Bytes of the keys and values held.
        var bytes = 0
        var observer: (@Sendable (StateStoreEvent) -> Void)?
        var closed = false

        mutating func insert(_ key: StateKey, _ record: StateRecord) {
            bytes += record.bytes.count
            if let old = records.updateValue(record, forKey: key) {
                bytes -= old.bytes.count
            } else {
                bytes += key.rawValue.utf8.count
                groups[MemoryStateStore.group(of: key.rawValue), default: []].insert(key)
            }
        }

        mutating func remove(_ key: StateKey) {
            guard let old = records.removeValue(forKey: key) else { return }
            bytes -= old.bytes.count + key.rawValue.utf8.count
            let group = MemoryStateStore.group(of: key.rawValue)
            groups[group]?.remove(key)
            if groups[group]?.isEmpty == true { groups[group] = nil }
        }

        /// Bytes of the live values under `prefix` other than `key`'s, and `key`'s own.
        func usage(under prefix: String, writing key: StateKey, now: Int64) -> (others: Int, own: Int) {
            var others = 0, own = 0
            for other in groups[MemoryStateStore.group(of: prefix)] ?? [] where other.rawValue.hasPrefix(prefix) {
                guard let record = records[other], !record.isExpired(now: now) else { continue }
                if other == key { own = record.bytes.count } else { others += record.bytes.count }
            }
            return (others, own)
        }
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
        _ key: StateKey, bytes: [UInt8], shape: Int, expected: Int64, expiresAt: Int64?, now: Int64, quota: StateQuota?
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
            if let quota {
                let usage = state.usage(under: quota.prefix, writing: key, now: now)
                if let refusal = quota.refusal(others: usage.others, own: usage.own, written: bytes.count, key: key) { throw refusal }
            }
            // An expired value's successor continues its version count, so a version is never reused.
            let version = (existing?.version ?? 0) + 1
            state.insert(key, StateRecord(bytes: bytes, version: version, shape: shape, expiresAt: expiresAt))
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
            state.remove(key)
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
            let removed = state.records.keys.filter { $0.rawValue.hasPrefix(prefix) }
            for key in removed { state.remove(key) }
            return removed.count
        }
    }

    public func purgeExpired(now: Int64) async throws(StateError) -> Int {
        try state.withLock { (state) throws(StateError) -> Int in
            try Self.checkOpen(state)
            let expired = state.records.filter { $0.value.isExpired(now: now) }.map(\.key)
            for key in expired { state.remove(key) }
            return expired.count
        }
    }

    public func storedBytes() async throws(StateError) -> Int64? {
        Int64(state.withLock { $0.bytes })
    }

    public func observe(_ observer: @escaping @Sendable (StateStoreEvent) -> Void) {
        state.withLock { $0.observer = observer }
    }

    public func close() {
        state.withLock { $0.closed = true }
    }

    /// A key's group: its text up to and including the second `/` (`session/<id>/`,
    /// `subject/<first part of the subject>/`), or all of it. Every key under a quota's prefix
    /// is in the prefix's own group.
    private static func group(of key: String) -> Substring {
        var slashes = 0
        for index in key.utf8.indices where key.utf8[index] == UInt8(ascii: "/") {
            slashes += 1
            if slashes == 2 { return key[...index] }
        }
        return key[...]
    }

    private static func checkOpen(_ state: State) throws(StateError) {
        if state.closed { throw StateError(.unavailable, "the state store is closed") }
    }
}
