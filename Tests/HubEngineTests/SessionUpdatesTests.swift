@testable import HubEngine
import HubModel
import Testing

/// A session's versions and subscribers, its lifetime in the engine, and the chain memo.
@Suite("Versions, subscriptions, lifetime")
struct SessionUpdatesTests {
    @Test("updates(): the current state first, then one state per change; unchanged views are not emitted")
    func updatesStream() async throws {
        let title = LockedBox("one")
        let a = ContentOperationMock { builder, _, _ in builder.title = title.value }
        let (engine, session, _) = try await EngineFixture.session([a])
        let stream = await session.updates()
        #expect(await session.subscriberCount == 1)
        _ = await session.reload()  // same content: no new version
        #expect(await session.state.version == 1)
        title.mutate { $0 = "two" }
        _ = await session.reload()
        #expect(engine.endSession(session.id))
        #expect(engine.session(session.id) == nil)
        var seen: [String?] = []
        for await state in stream { seen.append(state.title) }  // finishes when the session ends
        #expect(seen == ["one", "two"])
        #expect(a.performCount == 3)
    }

    @Test("Sessions are found by id until they end")
    func sessionLookup() async throws {
        let (engine, session, _) = try await EngineFixture.session([ContentOperationMock()])
        #expect(engine.session(session.id) === session)
        #expect(SessionIdentifier.isWellFormed(session.id))
        #expect(engine.endSession(session.id))
        #expect(!engine.endSession(session.id))
    }

    @Test("Chain memo: memoizable chains run once for every session and share the view model")
    func chainMemo() async throws {
        let a = ContentOperationMock.adding("a")
        a.setMemoizationKey("k")
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), memoEntries: 16)
        let engine = try EngineFixture.engine([a], configuration: configuration)
        let (_, first) = try await engine.openSession(for: EngineFixture.request())
        let (_, second) = try await engine.openSession(for: EngineFixture.request())
        #expect(a.performCount == 1)
        #expect(second.timings.map(\.memoized) == [true])
        let firstModel = try #require(first.viewModel)
        let secondModel = try #require(second.viewModel)
        #expect(firstModel === secondModel)
        // Offline is another input: another run.
        _ = try await engine.openSession(for: EngineFixture.request(.offline))
        #expect(a.performCount == 2)
    }
}
