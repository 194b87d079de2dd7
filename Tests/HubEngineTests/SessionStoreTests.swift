import HubEngine
import HubModel
import Testing

/// Sessions (reference section 10.2): identifiers, the LRU cap, the idle TTL and statistics.
@Suite("Sessions store")
struct SessionStoreTests {
    static let urlSafe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// `count` sessions from one engine (which keeps its own store; these tests use their own).
    static func sessions(_ count: Int) async throws -> [ViewSession] {
        let engine = try EngineFixture.engine([ContentOperationMock()])
        var sessions: [ViewSession] = []
        for _ in 0..<count { sessions.append(try await engine.openSession(for: EngineFixture.request()).session) }
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
    }

    @Test("A rebuilt (protected) newcomer never evicts a used or listened-to session: it is not stored")
    func protectedNewcomerEvictsNobody() async throws {
        let sessions = try await Self.sessions(3)
        let store = SessionStore(capacity: 2, idleTimeout: .seconds(60))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        let updates = await sessions[0].updates()
        #expect(store.session(sessions[0].id, now: start + .seconds(1)) === sessions[0])
        store.insert(sessions[1], now: start + .seconds(2))
        #expect(store.session(sessions[1].id, now: start + .seconds(3)) === sessions[1])
        // Both protected: even a protected newcomer takes no slot from them.
        #expect(!store.insert(sessions[2], protected: true, now: start + .seconds(4)))
        #expect(store.session(sessions[0].id, now: start + .seconds(5)) === sessions[0])
        #expect(store.session(sessions[1].id, now: start + .seconds(5)) === sessions[1])
        #expect(store.statistics.evicted == 0)
        // The listener's session stays open: ending it finishes its stream.
        store.remove(sessions[0].id)
        var count = 0
        for await _ in updates { count += 1 }
        #expect(count == 1)  // the current state, then the end
    }

    @Test("A large store is sharded: the cap holds exactly, the newest sessions stay, counts add up")
    func shardedStore() async throws {
        let sessions = try await Self.sessions(20_000)
        let store = SessionStore(capacity: 16_500, idleTimeout: .seconds(1_000_000))
        let start = ContinuousClock.now
        for (offset, session) in sessions.enumerated() {
            store.insert(session, now: start + .milliseconds(offset))
        }
        #expect(store.count == 16_500)
        let statistics = store.statistics
        #expect(statistics.active == 16_500)
        #expect(statistics.created == 20_000)
        #expect(statistics.evicted == 3_500)
        // Each shard evicts its own least recently used: the newest sessions are all kept...
        let later = start + .seconds(30)
        #expect(sessions.suffix(500).allSatisfy { store.session($0.id, now: later) === $0 })
        // ...and the oldest are the ones gone (each shard's first ~220 of ~1 250).
        #expect(sessions.prefix(100).allSatisfy { store.session($0.id, now: later) == nil })
        #expect(store.remove(sessions[19_999].id))
        #expect(store.count == 16_499)
        #expect(store.statistics.ended == 1)
        // Expiry runs over every shard.
        #expect(store.removeExpired(now: start + .seconds(2_000_000)) == 16_499)
        #expect(store.count == 0)
    }

    @Test("The sweep expires a session one TTL after its last use (the use moved it to the protected segment)")
    func sweepExpiresTouchedSessions() async throws {
        let sessions = try await Self.sessions(1)
        let store = SessionStore(capacity: 10, idleTimeout: .seconds(100))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        #expect(store.session(sessions[0].id, now: start + .seconds(90)) === sessions[0])
        #expect(store.statistics.protected == 1)
        #expect(store.removeExpired(now: start + .seconds(150)) == 0)  // used at 90
        #expect(store.removeExpired(now: start + .seconds(189)) == 0)
        #expect(store.removeExpired(now: start + .seconds(190)) == 1)  // idle since 90
        #expect(store.count == 0)
        #expect(store.removalReason(sessions[0].id) == .expired)
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

    @Test("a lookup records its use unless the last recorded use is within the granularity; the session expires one TTL after the recorded use")
    func lastUseIsRecordedAtItsGranularity() async throws {
        let sessions = try await Self.sessions(1)
        let store = SessionStore(capacity: 10, idleTimeout: .seconds(100))
        #expect(store.lastUseGranularity == .seconds(1))
        #expect(SessionStore(idleTimeout: .milliseconds(640)).lastUseGranularity == .milliseconds(10))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        // Used at 50 (recorded), then many times within the next second (not recorded).
        #expect(store.session(sessions[0].id, now: start + .seconds(50)) === sessions[0])
        for step in 1...9 {
            #expect(store.session(sessions[0].id, now: start + .seconds(50) + .milliseconds(100 * step)) === sessions[0])
        }
        // Idle since the recorded 50: alive before 150, expired at 150.
        #expect(store.removeExpired(now: start + .milliseconds(149_999)) == 0)
        #expect(store.removeExpired(now: start + .seconds(150)) == 1)
        // A use a full granularity later is recorded: a session polled every second never expires.
        let polled = try await Self.sessions(1)[0]
        store.insert(polled, now: start)
        for second in 1...250 {
            #expect(store.session(polled.id, now: start + .seconds(second)) === polled, "second \(second)")
        }
        #expect(store.removeExpired(now: start + .seconds(350)) == 1)  // idle since 250
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

    @Test("Many touches keep the LRU order right (access-log compaction); no newcomer evicts a used session")
    func lruAfterCompaction() async throws {
        let sessions = try await Self.sessions(4)
        let store = SessionStore(capacity: 2, idleTimeout: .seconds(1_000_000))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        store.insert(sessions[1], now: start)
        for round in 0..<5000 {
            // Alternate, ending on sessions[1]: sessions[0] is the least recently used.
            let session = sessions[round % 2]
            #expect(store.session(session.id, now: start + .milliseconds(round)) != nil)
        }
        // Both are used: an unused newcomer is not stored, it evicts nobody.
        #expect(!store.insert(sessions[2], now: start + .seconds(10)))
        #expect(store.statistics.evicted == 0)
        // Nor does a protected one: used sessions leave only by expiry or an end.
        #expect(!store.insert(sessions[3], protected: true, now: start + .seconds(10)))
        #expect(store.statistics.evicted == 0)
        #expect(store.session(sessions[0].id, now: start + .seconds(11)) === sessions[0])
        #expect(store.session(sessions[1].id, now: start + .seconds(11)) === sessions[1])
    }

    @Test("A flood of sessions opened and never used leaves used and listened-to sessions in place")
    func segmentedEviction() async throws {
        let sessions = try await Self.sessions(40)
        let store = SessionStore(capacity: 4, idleTimeout: .seconds(1_000_000))
        let start = ContinuousClock.now
        store.insert(sessions[0], now: start)
        store.insert(sessions[1], now: start)
        #expect(store.session(sessions[0].id, now: start) === sessions[0])  // used again: protected
        let updates = await sessions[1].updates()  // listened to
        for (offset, session) in sessions[2...].enumerated() {
            store.insert(session, now: start + .seconds(offset + 1))
        }
        #expect(store.session(sessions[0].id, now: start + .seconds(100)) === sessions[0])
        #expect(store.session(sessions[1].id, now: start + .seconds(100)) === sessions[1])
        #expect(store.count == 4)
        #expect(store.statistics.evicted == 36)
        _ = updates
    }

    @Test("The engine caps its sessions")
    func engineCap() async throws {
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), maxSessions: 2, memoEntries: 0)
        let engine = try EngineFixture.engine([ContentOperationMock()], configuration: configuration)
        let first = try await engine.openSession(for: EngineFixture.request()).session
        let second = try await engine.openSession(for: EngineFixture.request()).session
        let third = try await engine.openSession(for: EngineFixture.request()).session
        #expect(engine.session(first.id) == nil)
        #expect(engine.session(second.id) === second)
        #expect(engine.session(third.id) === third)
        #expect(engine.sessions.statistics.evicted == 1)
    }

    // MARK: - Sessions without a view model

    @Test("A session whose first load fails is not kept (memo on or off); its holder can still use it")
    func failedFirstLoadNotKept() async throws {
        for memoEntries in [0, 16] {
            let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), memoEntries: memoEntries)
            let operation = ContentOperationMock.adding("a")
            operation.setMemoizationKey("a")
            operation.setError(TestError(code: 1))
            let engine = try EngineFixture.engine([operation], configuration: configuration)
            // The second open replays the memoized failure when the memo is on.
            for attempt in 1...2 {
                let (session, state) = try await engine.openSession(for: EngineFixture.request())
                #expect(state.viewModel == nil && state.failure != nil)
                #expect(engine.session(session.id) == nil, "memo \(memoEntries), attempt \(attempt)")
                let statistics = engine.sessions.statistics
                #expect(statistics.created == attempt && statistics.failed == attempt && statistics.active == 0)
                #expect(statistics.ended == 0 && statistics.evicted == 0 && statistics.expired == 0)
            }
            #expect(engine.sessions.count == 0)
            #expect(operation.performCount == (memoEntries == 0 ? 2 : 1))
            if memoEntries == 0 {
                // Outside the store, the session still works for the caller holding it.
                let (session, _) = try await engine.openSession(for: EngineFixture.request())
                operation.setError(nil)
                let reloaded = await session.reload()
                #expect(reloaded.viewModel?.body.map(\.identifier) == ["a"])
                #expect(engine.session(session.id) == nil)
            }
        }
    }

    @Test("Only a session without any view model leaves: a failed reload keeps the session (S95)")
    func failedReloadKeepsSession() async throws {
        let operation = ContentOperationMock.adding("a")
        let engine = try EngineFixture.engine([operation])
        let (session, first) = try await engine.openSession(for: EngineFixture.request())
        #expect(first.viewModel != nil)
        #expect(engine.session(session.id) === session)
        operation.setError(TestError(code: 2))
        let reloaded = await session.reload()
        #expect(reloaded.failure != nil && reloaded.viewModel != nil)
        #expect(engine.session(session.id) === session)
        #expect(engine.sessions.statistics.failed == 0)
    }

    @Test("A session followed while its first load fails leaves the store and is closed", .timeLimit(.minutes(1)))
    func followedFailedFirstLoad() async throws {
        let gate = TaskGate()
        let operation = ContentOperationMock { _, _, _ in await gate.pass() }
        operation.setError(TestError(code: 3))
        let engine = try EngineFixture.engine([operation])
        let open = Task { try await engine.openSession(for: EngineFixture.request()) }
        await gate.arrivals(1)
        // During its first load the session is in the store (the chain's {session} is live).
        let id = try #require(operation.lastCall?.context.sessionID)
        let session = try #require(engine.session(id))
        let updates = await session.updates()
        gate.release()
        let (opened, state) = try await open.value
        #expect(opened === session && state.viewModel == nil)
        #expect(engine.session(id) == nil)
        var received = 0
        for await _ in updates { received += 1 }  // finishes: the session was closed
        #expect(received == 0)
        #expect(engine.sessions.statistics.failed == 1)
    }

    @Test("loadView runs the chain (memo fast path included) and keeps no session")
    func loadViewKeepsNoSession() async throws {
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), memoEntries: 16)
        let operation = ContentOperationMock.adding("a")
        operation.setMemoizationKey("a")
        let engine = try EngineFixture.engine([operation], configuration: configuration)
        for _ in 1...2 {  // the second is a memo hit
            let state = try await engine.loadView(for: EngineFixture.request())
            #expect(state.viewModel?.body.map(\.identifier) == ["a"])
            #expect(state.version == 1)
        }
        #expect(operation.performCount == 1)
        #expect(engine.sessions.count == 0)
        #expect(engine.sessions.statistics.created == 0)
        operation.setError(TestError(code: 4))
        operation.setMemoizationKey(nil)
        let failed = try await engine.loadView(for: EngineFixture.request())
        #expect(failed.viewModel == nil && failed.failure != nil)
        let statistics = engine.sessions.statistics
        #expect(statistics.created == 0 && statistics.failed == 0 && statistics.active == 0)
        await #expect(throws: EngineError.self) { try await engine.loadView(for: EngineFixture.request(uri: "hub:other")) }
    }
}
