import HubEngine
import HubModel
import Testing

/// Sessions (reference section 10.2): identifiers, the LRU cap, the idle TTL and statistics.
@Suite("Sessions store")
struct SessionStoreTests {
    static let urlSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `count` sessions from one engine (which keeps its own store; these tests use their own).
    static func sessions(_ count: Int) async throws -> [ViewSession] {
        let engine = try Fixture.engine([ContentOperationMock()])
        var sessions: [ViewSession] = []
        for _ in 0..<count { sessions.append(try await engine.openSession(for: Fixture.request()).session) }
        return sessions
    }

    @Test("Identifiers: 22 URL-safe characters, well formed and distinct")
    func identifiers() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = SessionIdentifier.make()
            #expect(id.count == 22)
            #expect(id.allSatisfy { Self.urlSafe.contains($0) })
            #expect(SessionIdentifier.isWellFormed(id))
            seen.insert(id)
        }
        #expect(seen.count == 1000)
        #expect(!SessionIdentifier.isWellFormed("short"))
        #expect(!SessionIdentifier.isWellFormed(String(repeating: "a", count: 21) + "="))
        #expect(!SessionIdentifier.isWellFormed(String(repeating: "a", count: 23)))
    }

    @Test("Identifiers use all 128 bits: the last character carries 2 bits")
    func identifierLastCharacter() {
        // 21 groups of 6 bits + 2 bits shifted left by 4: the last character is A, Q, g or w.
        for _ in 0..<200 {
            let last = SessionIdentifier.make().last
            #expect(last.map { "AQgw".contains($0) } == true)
        }
    }

    @Test("The least recently used session is evicted past the cap, and closed")
    func lruEviction() async throws {
        let sessions = try await Self.sessions(4)
        let store = SessionStore(capacity: 3, idleTimeout: .seconds(60))
        let start = ContinuousClock.now
        for (offset, session) in sessions.prefix(3).enumerated() {
            store.insert(session, now: start + .seconds(offset))
        }
        // Touch the oldest: the second becomes the least recently used.
        #expect(store.session(sessions[0].id, now: start + .seconds(3)) === sessions[0])
        let evictedUpdates = await sessions[1].updates()
        store.insert(sessions[3], now: start + .seconds(4))
        #expect(store.count == 3)
        #expect(store.session(sessions[1].id, now: start + .seconds(5)) == nil)
        #expect(store.session(sessions[0].id, now: start + .seconds(5)) === sessions[0])
        #expect(store.session(sessions[2].id, now: start + .seconds(5)) === sessions[2])
        #expect(store.session(sessions[3].id, now: start + .seconds(5)) === sessions[3])
        let statistics = store.statistics
        #expect(statistics.created == 4)
        #expect(statistics.evicted == 1)
        #expect(statistics.active == 3)
        // The evicted session was closed: its update stream finishes.
        var count = 0
        for await _ in evictedUpdates { count += 1 }
        #expect(count == 1)  // the current state, then the end
    }

    @Test("The sweep expires a session used since its record within one more TTL (incremental sweep)")
    func sweepExpiresTouchedSessionsLate() async throws {
        let sessions = try await Self.sessions(1)
        let store = SessionStore(capacity: 10, idleTimeout: .seconds(100))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        #expect(store.session(sessions[0].id, now: start + .seconds(90)) === sessions[0])
        #expect(store.removeExpired(now: start + .seconds(150)) == 0)  // used at 90: moved back
        #expect(store.removeExpired(now: start + .seconds(249)) == 0)
        #expect(store.removeExpired(now: start + .seconds(250)) == 1)  // idle since 90, swept by 150 + TTL
        #expect(store.count == 0)
    }

    @Test("Sessions idle for the TTL expire (explicit clock)")
    func idleExpiry() async throws {
        let sessions = try await Self.sessions(3)
        let store = SessionStore(capacity: 10, idleTimeout: .seconds(100))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        store.insert(sessions[1], now: start)
        store.insert(sessions[2], now: start + .seconds(50))
        // Use keeps a session alive.
        #expect(store.session(sessions[0].id, now: start + .seconds(99)) === sessions[0])
        #expect(store.session(sessions[1].id, now: start + .seconds(100)) == nil)  // idle exactly the TTL
        #expect(store.statistics.expired == 1)
        #expect(store.removeExpired(now: start + .seconds(149)) == 0)
        #expect(store.removeExpired(now: start + .seconds(150)) == 1)  // sessions[2], inserted at 50
        #expect(store.session(sessions[0].id, now: start + .seconds(198)) === sessions[0])
        #expect(store.removeExpired(now: start + .seconds(297)) == 0)
        // A request checks the TTL exactly: sessions[0], last used at 198, is gone at 298.
        #expect(store.session(sessions[0].id, now: start + .seconds(298)) == nil)
        let statistics = store.statistics
        #expect(statistics.expired == 3)
        #expect(statistics.active == 0)
        #expect(store.count == 0)
    }

    @Test("remove ends a session once")
    func remove() async throws {
        let sessions = try await Self.sessions(1)
        let store = SessionStore(capacity: 10, idleTimeout: .seconds(100))
        store.insert(sessions[0])
        #expect(store.remove(sessions[0].id))
        #expect(!store.remove(sessions[0].id))
        #expect(store.session(sessions[0].id) == nil)
        let statistics = store.statistics
        #expect([statistics.active, statistics.created, statistics.evicted, statistics.expired, statistics.ended] == [0, 1, 0, 0, 1])
    }

    @Test("Many touches keep the LRU order right (access-log compaction)")
    func lruAfterCompaction() async throws {
        let sessions = try await Self.sessions(3)
        let store = SessionStore(capacity: 2, idleTimeout: .seconds(1_000_000))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        store.insert(sessions[1], now: start)
        for round in 0..<5000 {
            // Alternate, ending on sessions[1]: sessions[0] is the least recently used.
            let session = sessions[round % 2]
            #expect(store.session(session.id, now: start + .milliseconds(round)) != nil)
        }
        store.insert(sessions[2], now: start + .seconds(10))
        #expect(store.session(sessions[0].id, now: start + .seconds(11)) == nil)
        #expect(store.session(sessions[1].id, now: start + .seconds(11)) === sessions[1])
        #expect(store.statistics.evicted == 1)
    }

    @Test("The engine caps its sessions")
    func engineCap() async throws {
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), maxSessions: 2, memoEntries: 0)
        let engine = try Fixture.engine([ContentOperationMock()], configuration: configuration)
        let first = try await engine.openSession(for: Fixture.request()).session
        let second = try await engine.openSession(for: Fixture.request()).session
        let third = try await engine.openSession(for: Fixture.request()).session
        #expect(engine.session(first.id) == nil)
        #expect(engine.session(second.id) === second)
        #expect(engine.session(third.id) === third)
        #expect(engine.sessions.statistics.evicted == 1)
    }
}
