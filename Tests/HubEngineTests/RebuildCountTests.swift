@testable import HubEngine
import HubModel
import Testing

/// `hub_sessions_rebuilt_total` counts a session once however many requests bring it back.
@Suite("Rebuild counting")
struct RebuildCountTests {
    @Test("two requests rebuilding one session at once share the run and count one rebuild")
    func concurrentRebuildsCountOnce() async throws {
        let gate = TaskGate()
        let operation = ContentOperationMock(name: "slow") { builder, _, _ in
            await gate.pass()
            builder.body["row"].title = "rebuilt"
        }
        let engine = try EngineFixture.engine([operation])
        let token = engine.issueToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, lazy: false)
        let first = Task { try await engine.resolve(token) { EngineFixture.request(uri: $0) } }
        await gate.arrivals(1)  // the first rebuild runs (and waits) ...
        let second = Task { try await engine.resolve(token) { EngineFixture.request(uri: $0) } }
        // ... the second finds the session held (stored before its first load) and waits for
        // that run instead of starting one. (Two requests that both miss the store and race to
        // insert it share the run as well: the loser joins, and only the winner counts.)
        gate.open()
        guard case .rebuilt(_, let rebuilt, _, _)? = try await first.value else {
            Issue.record("the first request should rebuild the session")
            return
        }
        #expect(rebuilt.viewModel?.body.first?.title == "rebuilt")
        switch try await second.value {
        case .held(let session)?:
            #expect(await session.settled().viewModel?.body.first?.title == "rebuilt")
        case .rebuilt(_, let state, _, _)?:
            #expect(state.viewModel?.body.first?.title == "rebuilt")
        case nil:
            Issue.record("the second request should find the session")
        }
        #expect(operation.calls.count == 1)
        #expect(engine.sessions.statistics.rebuiltUnknown == 1)
    }
}
