import Foundation
import HubEngine
import HubModel
import HubState
import HubSync
import HubTestSupport
import Testing

/// What every backend promises (``StateStore``): compare-and-set versions, deletes, TTLs,
/// prefixes, change events, and no lost update under concurrent writers. Run against memory, a
/// real SQLite file and a real PostgreSQL cluster.
@Suite("State store contract")
struct StateStoreContractTests {
    @Test("compare-and-set: a write names the version it read; a stale one is a conflict naming the current", arguments: StateBackend.allCases)
    func compareAndSet(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let key = try freshKey()
        #expect(try await store.read(key, now: 0) == nil)
        let first = try await store.write(key, bytes: Array(json: #"{"n":1}"#), shape: 1, expected: 0, expiresAt: nil, now: 0)
        #expect(first == 1)
        await #expect(throws: StateError(.conflict, "'\(key)' is at version 1, not 0", currentVersion: 1)) {
            try await store.write(key, bytes: Array(json: #"{"n":9}"#), shape: 1, expected: 0, expiresAt: nil, now: 0)
        }
        let second = try await store.write(key, bytes: Array(json: #"{"n":2}"#), shape: 2, expected: 1, expiresAt: nil, now: 0)
        #expect(second == 2)
        let record = try #require(try await store.read(key, now: 0))
        #expect(record == StateRecord(bytes: Array(json: #"{"n":2}"#), version: 2, shape: 2, expiresAt: nil))
        #expect(try await store.versions(of: [key, try freshKey()]) == [key: 2])
    }

    @Test("delete: a wrong version is a conflict and removes nothing; then the key starts again", arguments: StateBackend.allCases)
    func deletes(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let key = try freshKey()
        _ = try await store.write(key, bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0)
        await #expect(throws: StateError.self) { try await store.delete(key, expected: 7) }
        #expect(try await store.read(key, now: 0)?.version == 1)
        #expect(try await store.delete(key, expected: 1))
        #expect(try await store.delete(key, expected: nil) == false)
        #expect(try await store.read(key, now: 0) == nil)
        #expect(try await store.write(key, bytes: Array(json: "2"), shape: 1, expected: 0, expiresAt: nil, now: 0) == 1)
    }

    @Test("TTL: an expired value reads as none, its successor continues the version count, and purge removes it", arguments: StateBackend.allCases)
    func expiry(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let key = try freshKey()
        _ = try await store.write(key, bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: 1_000, now: 900)
        #expect(try await store.read(key, now: 999)?.version == 1)
        #expect(try await store.read(key, now: 1_000) == nil)
        #expect(try await store.write(key, bytes: Array(json: "2"), shape: 1, expected: 0, expiresAt: 2_000, now: 1_000) == 2)
        let other = try freshKey()
        _ = try await store.write(other, bytes: Array(json: "3"), shape: 1, expected: 0, expiresAt: 1_500, now: 1_000)
        #expect(try await store.purgeExpired(now: 1_600) >= 1)
        #expect(try await store.read(other, now: 0) == nil, "purged, not only hidden")
        #expect(try await store.read(key, now: 1_600)?.version == 2)
    }

    @Test("prefixes: records and deleteAll see exactly the keys under the prefix", arguments: StateBackend.allCases)
    func prefixes(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let session = "s\(UUID().uuidString)"
        let keys = try ["a", "b"].map { try StateKey($0, in: .session, sessionID: session) }
        let outside = try StateKey("a", in: .session, sessionID: session + "x")
        for key in keys + [outside] {
            _ = try await store.write(key, bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0)
        }
        let listed = try await store.records(withPrefix: "session/\(session)/", now: 0).map(\.0)
        #expect(Set(listed) == Set(keys))
        #expect(try await store.deleteAll(withPrefix: "session/\(session)/") == 2)
        for key in keys { #expect(try await store.read(key, now: 0) == nil, "deleted, not answered from memory") }
        #expect(try await store.read(outside, now: 0) != nil)
    }

    @Test("another writer of the same data: a write expecting what this store held is a conflict, then reads see the other's value", arguments: StateBackend.allCases)
    func otherWriter(backend: StateBackend) async throws {
        let (store, other) = try backend.makePair()
        defer {
            store.close()
            other.close()
        }
        let key = try freshKey()
        _ = try await store.write(key, bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0)
        if backend != .memory {
            #expect(store.recentRecord(key, now: 0) == StateRecord(bytes: Array(json: "1"), version: 1, shape: 1, expiresAt: nil))
        }
        #expect(try await other.write(key, bytes: Array(json: "2"), shape: 1, expected: 1, expiresAt: nil, now: 0) == 2)
        await #expect(throws: StateError(.conflict, "'\(key)' is at version 2, not 1", currentVersion: 2)) {
            try await store.write(key, bytes: Array(json: "3"), shape: 1, expected: 1, expiresAt: nil, now: 0)
        }
        #expect(try await store.read(key, now: 0) == StateRecord(bytes: Array(json: "2"), version: 2, shape: 1, expiresAt: nil))
        #expect(store.recentRecord(key, now: 0)?.version != 1)
    }

    @Test("update from a record another writer replaced: the change lands on the current value, and a change found unneeded is decided again on it", arguments: StateBackend.allCases)
    func updateFromReplacedRecord(backend: StateBackend) async throws {
        let (store, other) = try backend.makePair()
        defer {
            store.close()
            other.close()
        }
        let session = "s\(UUID().uuidString)"
        let here = StateAccess(store: store, sessionID: session)
        let there = StateAccess(store: other, sessionID: session)
        func appending(_ item: Int, below limit: Int = .max) -> (inout JSONValue?) throws -> Bool {
            { value in
                guard case .array(var items)? = value ?? .array([]), items.count < limit else { return false }
                items.append(.int(item))
                value = .array(items)
                return true
            }
        }
        try await here.update("list", appending(1))
        try await there.update("list", appending(2))
        // `here` may still hold [1] at version 1: its write conflicts, it reads [1, 2] and appends.
        #expect(try await here.update("list", appending(3)) == StateValue(value: [1, 2, 3], version: 3))
        try await there.update("list") { value in
            value = .array([])
            return true
        }
        // Held: [1, 2, 3], full for a limit of 3; stored: [] at version 4.
        #expect(try await here.update("list", appending(7, below: 3)) == StateValue(value: [7], version: 5))
    }

    @Test("every write and delete is reported to the observer with its version", arguments: StateBackend.allCases)
    func changeEvents(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let seen = Locked<[StateStoreEvent]>([])
        store.observe { event in seen.withLock { $0.append(event) } }
        if let postgres = store as? PostgresStateStore {
            #expect(await eventually { postgres.isListening })
        }
        let key = try freshKey()
        _ = try await store.write(key, bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0)
        _ = try await store.write(key, bytes: Array(json: "2"), shape: 1, expected: 1, expiresAt: nil, now: 0)
        _ = try await store.delete(key, expected: 2)
        let expected: [StateStoreEvent] = [.changed(key, version: 1), .changed(key, version: 2), .changed(key, version: 0)]
        #expect(await eventually { seen.withLock { $0.filter { expected.contains($0) } } == expected })
    }

    @Test("fifty concurrent read-modify-write updates of one key: none is lost", arguments: StateBackend.allCases)
    func concurrentUpdates(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let access = StateAccess(store: store, sessionID: "s\(UUID().uuidString)", settings: StateSettings(maxUpdateAttempts: 200))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await access.update("list") { value in
                        guard case .array(var items)? = value ?? .array([]) else { return false }
                        items.append(.int(index))
                        value = .array(items)
                        return true
                    }
                }
            }
            try await group.waitForAll()
        }
        let stored = try #require(try await access.read("list"))
        guard case .array(let items) = stored.value else { throw HarnessError("not a list") }
        #expect(Set(items.compactMap(\.intValue)) == Set(0..<50))
        #expect(stored.version == 50)
    }
}
