@testable import HubEngine
import HubModel
import HubSync
import Testing

/// The session store's byte cap (`sessions.maxBytes`): sessions say what they hold
/// (``ViewSession/retainedBytesEstimate``), and past the cap the store evicts as past its count
/// cap: probation sessions first, never a protected one, never one followed over SSE.
@Suite("Session byte cap")
struct SessionByteCapTests {
    /// An operation rendering `rows` rows (read at each run).
    static func rowsOperation(_ rows: Locked<Int>) -> any ContentOperation {
        BlockContentOperation(name: "rows") { builder, _ in
            for index in 0..<rows.withLock({ $0 }) {
                builder.body.update("row-\(index)") { row in
                    row.title = "Row \(index): a title long enough to live on the heap"
                    row.withTarget { $0.addAction(ComponentIdentifier(namespace: "rows", name: "open")) }
                }
            }
        }
    }

    /// An engine over one rows feature, with `maxBytes` as its byte cap (and a store of one
    /// shard: a large store splits both caps over 16 shards by session identifier).
    static func engine(rows: Locked<Int>, maxBytes: Int = .max) throws -> ViewEngine {
        var configuration = EngineFixture.configuration
        configuration.maxSessions = 1000
        configuration.maxSessionBytes = maxBytes
        return try EngineFixture.engine([rowsOperation(rows)], configuration: configuration)
    }

    /// The estimate of a session showing `count` rows.
    static func estimate(rows count: Int) async throws -> Int {
        let engine = try engine(rows: Locked(count))
        return try await engine.openSession(for: EngineFixture.request()).session.retainedBytesEstimate
    }

    @Test("A session's estimate follows its view: more rows, more bytes; the store's total is the sum")
    func estimateFollowsTheView() async throws {
        let rows = Locked(2)
        let engine = try Self.engine(rows: rows)
        let (session, _) = try await engine.openSession(for: EngineFixture.request())
        let small = session.retainedBytesEstimate
        #expect(small > ViewSession.baseBytes)
        #expect(engine.sessions.statistics.bytes == small)
        rows.withLock { $0 = 50 }
        _ = await session.reload()
        let large = session.retainedBytesEstimate
        // 48 more rows, each more than its ~150 bytes of JSON and less than 2 KB.
        #expect(large > small + 48 * 150 && large < small + 48 * 2048)
        #expect(engine.sessions.statistics.bytes == large)
        rows.withLock { $0 = 1 }
        _ = await session.reload()
        #expect(session.retainedBytesEstimate < small)
        #expect(engine.sessions.statistics.bytes == session.retainedBytesEstimate)
        engine.sessions.remove(session.id)
        #expect(engine.sessions.statistics.bytes == 0)
    }

    @Test("Past the byte cap a newcomer evicts the least recently used probation session, never a used or listened one")
    func newcomerEvictsProbationOnly() async throws {
        let rows = Locked(10)
        let engine = try Self.engine(rows: rows)
        var sessions: [ViewSession] = []
        for _ in 0..<5 { sessions.append(try await engine.openSession(for: EngineFixture.request()).session) }
        let each = sessions[0].retainedBytesEstimate
        #expect(sessions.allSatisfy { $0.retainedBytesEstimate == each })
        let store = SessionStore(capacity: 100, maxBytes: 3 * each + each / 2, idleTimeout: .seconds(1_000_000))
        let start = ContinuousClock.now
        for (offset, session) in sessions.prefix(3).enumerated() { store.insert(session, now: start + .seconds(offset)) }
        #expect(store.statistics.bytes == 3 * each)
        // 0 is used again (protected), 1 is followed over SSE, 2 was opened and never used.
        #expect(store.session(sessions[0].id, now: start + .seconds(3)) === sessions[0])
        let updates = await sessions[1].updates()
        #expect(store.insert(sessions[3], now: start + .seconds(4)))
        #expect(store.session(sessions[2].id, now: start + .seconds(5)) == nil)
        #expect(store.removalReason(sessions[2].id) == .evicted)
        #expect(store.session(sessions[0].id, now: start + .seconds(5)) === sessions[0])
        #expect(store.session(sessions[1].id, now: start + .seconds(5)) === sessions[1])
        #expect(store.session(sessions[3].id, now: start + .seconds(5)) === sessions[3])
        #expect(store.statistics.evicted == 1)
        #expect(store.statistics.bytes == 3 * each)
        // Every held session is now protected or listened to: a newcomer frees nothing and is not stored.
        #expect(!store.insert(sessions[4], now: start + .seconds(6)))
        #expect(store.count == 3)
        #expect(store.statistics.evicted == 1)
        #expect(store.statistics.bytes == 3 * each)
        store.remove(sessions[1].id)
        for await _ in updates {}
        #expect(store.statistics.bytes == 2 * each)
        // The way around the cap: room again, and the newcomer is stored.
        #expect(store.insert(sessions[4], now: start + .seconds(7)))
        #expect(store.statistics.bytes == 3 * each)
    }

    @Test("A session that grows past the cap evicts an unused one, never itself, a used one or a listened one")
    func growthEvictsProbationOnly() async throws {
        let small = try await Self.estimate(rows: 2)
        let large = try await Self.estimate(rows: 60)
        let rows = Locked(2)
        // Room for the large view and one small one, not for two small ones beside it.
        let engine = try Self.engine(rows: rows, maxBytes: large + small + small / 2)
        let used = try await engine.openSession(for: EngineFixture.request()).session
        let listened = try await engine.openSession(for: EngineFixture.request()).session
        let unused = try await engine.openSession(for: EngineFixture.request()).session
        let growing = try await engine.openSession(for: EngineFixture.request()).session
        #expect(engine.sessions.count == 4)
        #expect(engine.sessions.session(used.id) === used)
        let updates = await listened.updates()
        rows.withLock { $0 = 60 }
        _ = await growing.reload()
        #expect(growing.retainedBytesEstimate == large)
        let store = engine.sessions
        #expect(store.removalReason(unused.id) == .evicted)
        #expect(store.session(growing.id) === growing)
        #expect(store.session(used.id) === used)
        #expect(store.session(listened.id) === listened)
        // Over the cap with only protected and listened sessions left: nothing more to evict.
        #expect(store.statistics.evicted == 1)
        #expect(store.statistics.bytes == large + 2 * small)
        store.remove(listened.id)
        for await _ in updates {}
        #expect(store.statistics.bytes == large + small)
    }

    @Test("A held session keeps its own view as the JSON it serves; its estimate follows that JSON")
    func heldViewIsCompact() async throws {
        let rows = Locked(50)
        let (_, session, state) = try await EngineFixture.session([Self.rowsOperation(rows)])
        let view = try #require(state.viewModel)
        #expect(view.isCompact)
        let json = view.jsonBytes().count
        #expect(session.retainedBytesEstimate >= ViewSession.baseBytes + json)
        #expect(session.retainedBytesEstimate <= ViewSession.baseBytes + json + 256)
        // Its components read back from those bytes.
        #expect(view.body.count == 50)
        #expect(view.component(withIdentifier: "row-7")?.title == "Row 7: a title long enough to live on the heap")
        // The same content again is not a new version; other content is.
        let same = await session.reload()
        #expect(same.version == state.version && same.viewModel === view)
        rows.withLock { $0 = 49 }
        let fewer = await session.reload()
        #expect(fewer.version == state.version + 1 && fewer.viewModel?.isCompact == true)
        #expect(fewer.viewModel?.body.count == 49)
    }

    @Test("Without a byte cap nothing is evicted for bytes")
    func noCap() async throws {
        let rows = Locked(60)
        let engine = try Self.engine(rows: rows)
        for _ in 0..<20 { _ = try await engine.openSession(for: EngineFixture.request()) }
        #expect(engine.sessions.count == 20)
        #expect(engine.sessions.statistics.evicted == 0)
        #expect(engine.sessions.maxBytes == .max)
    }

    @Test("The last snapshot is dropped once built, unless an operation pages; explain still reports it")
    func lastSnapshotReleased() async throws {
        let rows = Locked(3)
        let (_, session, state) = try await EngineFixture.session([Self.rowsOperation(rows)])
        #expect(state.viewModel?.body.count == 3)
        #expect(await session.snapshots.allSatisfy { $0 == nil })
        let explained = await session.explanation()
        #expect(explained.count == 1)
        #expect(explained.first?.outcome == .ran)
        // A re-run builds it, and the view follows.
        rows.withLock { $0 = 4 }
        let reloaded = await session.reload()
        #expect(reloaded.viewModel?.body.count == 4)
        #expect(await session.snapshots.allSatisfy { $0 == nil })
    }
}
