import Foundation
import HubEngine
import HubState
import HubSync
import HubTestSupport
import Testing

/// What only the shared store does: a write on one replica reaches every replica's observer
/// (LISTEN/NOTIFY), and a database that goes away and comes back costs no acknowledged write
/// and no restart.
@Suite("PostgreSQL state store", .serialized)
struct PostgresStateStoreTests {
    @Test("a write through one store instance (replica A) is reported to another (replica B) with its version")
    func notificationsCrossReplicas() async throws {
        let url = try PostgresCluster.shared().url
        let replicaA = PostgresStateStore(url: url, poolSize: 2)
        let replicaB = PostgresStateStore(url: url, poolSize: 2)
        defer {
            replicaA.close()
            replicaB.close()
        }
        let seenByB = Locked<[StateStoreEvent]>([])
        replicaB.observe { event in seenByB.withLock { $0.append(event) } }
        #expect(await eventually { replicaB.isListening })
        let key = try freshKey()
        let version = try await replicaA.write(key, bytes: Array(json: #"{"a":1}"#), shape: 1, expected: 0, expiresAt: nil, now: 0)
        #expect(await eventually { seenByB.withLock { $0.contains(.changed(key, version: version)) } })
        #expect(try await replicaB.read(key, now: 0)?.bytes == Array(json: #"{"a":1}"#))
    }

    @Test("the database stopped: calls are unavailable (status too), acknowledged writes stay, and after a restart writes succeed and the feed resyncs")
    func databaseGoesAwayAndComesBack() async throws {
        let cluster = try PostgresCluster()
        let store = PostgresStateStore(url: cluster.url, poolSize: 2)
        defer { store.close() }
        let events = Locked<[StateStoreEvent]>([])
        store.observe { event in events.withLock { $0.append(event) } }
        let key = try freshKey()
        #expect(try await store.write(key, bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0) == 1)
        #expect(await eventually { store.isListening })
        #expect(store.status.available)

        try cluster.stop()
        await #expect(throws: StateError.self) {
            try await store.write(key, bytes: Array(json: "2"), shape: 1, expected: 1, expiresAt: nil, now: 0)
        }
        await #expect(throws: StateError.self) { try await store.read(key, now: 0) }
        #expect(store.status.available == false)
        #expect(store.status.detail?.isEmpty == false)

        try cluster.start()
        // The pool reconnects by itself (no new store, no restart).
        #expect(await eventually { (try? await store.read(key, now: 0)) != nil })
        #expect(try await store.read(key, now: 0)?.bytes == Array(json: "1"), "the acknowledged write survived")
        #expect(try await store.write(key, bytes: Array(json: "2"), shape: 1, expected: 1, expiresAt: nil, now: 0) == 2)
        #expect(store.status.available)
        #expect(await eventually { events.withLock { $0.contains(.resync) } }, "the listener reconnected and asked for a resync")
    }

    @Test("a connection that failed to connect while the database was down connects again as soon as another connection of its pool has, not after its whole retry delay")
    func failedConnectionFollowsItsPool() async throws {
        let cluster = try PostgresCluster()
        // A delay no call of this test waits out: only the pool's other connection can lift it.
        let store = PostgresStateStore(url: cluster.url, poolSize: 2, reconnectDelay: .seconds(300))
        defer { store.close() }
        let key = try freshKey()
        #expect(try await store.write(key, bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0) == 1)

        // One call after another goes to the first connection (the least busy): it finds the
        // database gone and fails to connect, then waits out its delay.
        try cluster.stop()
        await #expect(throws: StateError.self) { try await store.read(key, now: 0) }
        try cluster.start()
        await #expect(throws: StateError.self, "within its delay, and with no other connect, it does not try again") {
            try await store.read(key, now: 0)
        }

        // Calls made together also reach the second connection, which has not failed: it connects.
        #expect(await eventually {
            async let first = try? await store.read(key, now: 0)
            async let second = try? await store.read(key, now: 0)
            let (a, b) = await (first, second)
            return a != nil || b != nil
        })
        // The database is back: the first connection connects on its next call, long before its delay.
        for _ in 0..<3 {
            #expect(try await store.read(key, now: 0)?.bytes == Array(json: "1"))
        }
        #expect(store.status.available)
    }

    @Test("a bad connection string is unavailable with libpq's reason, never a crash")
    func badURL() async throws {
        let store = PostgresStateStore(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1", poolSize: 1)
        defer { store.close() }
        let key = try freshKey()
        do {
            _ = try await store.read(key, now: 0)
            Issue.record("read from a database that does not exist")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.detail.contains("connect"))
        }
    }

    @Test("notification payloads: the version follows the last space; malformed ones are ignored")
    func payloads() throws {
        #expect(PostgresListenerPayload.parse("session/abc/todo 12") == .changed(try #require(StateKey(rawValue: "session/abc/todo")), version: 12))
        #expect(PostgresListenerPayload.parse("subject/a b/x 3") == .changed(try #require(StateKey(rawValue: "subject/a b/x")), version: 3))
        #expect(PostgresListenerPayload.parse("garbage") == nil)
        #expect(PostgresListenerPayload.parse("key notanumber") == nil)
    }
}
