@testable import HubEngine
import HubModel
import HubSync
import Testing

/// `ViewEngine.loadHeld(_:sameClient:request:)`: when the caller can tell, without making it,
/// that its request is the session's baseline again (a client polling with the same headers),
/// the settled view answers and no request is made; whenever that cannot answer, the request is
/// made and the load goes on as before.
@Suite("Held loads of the baseline request")
struct HeldBaselineTests {
    static func request(_ probe: String = "1") -> ViewRequest {
        ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Probe", probe)])
    }

    /// Counts the requests `loadHeld` asked for.
    final class Made: Sendable {
        let count = Locked(0)
        func request(_ probe: String = "1") -> ViewRequest {
            count.withLock { $0 += 1 }
            return HeldBaselineTests.request(probe)
        }
        var total: Int { count.withLock { $0 } }
    }

    @Test("the baseline again is answered by the settled view with no request made; sameClient sees the session's URI and baseline")
    func baselineAnsweredWithoutARequest() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, first) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()  // publishes the settled view
        let made = Made()
        let seen = Locked<[(String, String?)]>([])
        let load = engine.loadHeld(
            session.token.encoded,
            sameClient: { uri, baseline in
                seen.withLock { $0.append((uri, baseline.header("X-Probe"))) }
                return true
            },
            request: { _ in made.request() })
        guard case .now(let answered, let state) = load else { throw TestFailure("the baseline went to the session") }
        #expect(answered === session)
        #expect(state.version == first.version && state.viewModel == first.viewModel)
        #expect(made.total == 0, "no request made")
        #expect(seen.withLock { $0.map(\.0) } == [session.viewURI])
        #expect(seen.withLock { $0.map(\.1) } == ["1"])
        #expect(a.performCount == 1)
    }

    @Test("when sameClient says no, the request is made and compared as before")
    func notTheBaselineMakesTheRequest() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        let made = Made()
        let same = engine.loadHeld(session.token.encoded, sameClient: { _, _ in false }, request: { _ in made.request() })
        guard case .now = same else { throw TestFailure("the same request went to the session") }
        #expect(made.total == 1)
        let other = engine.loadHeld(session.token.encoded, sameClient: { _, _ in false }, request: { _ in made.request("2") })
        guard case .now = other else { throw TestFailure("a never-reloaded view went to the session") }
        #expect(made.total == 2)
        _ = await session.reschedule(operationAt: 0)
        #expect(a.lastCall?.context.request.header("X-Probe") == "2", "the other request was recorded as the latest")
    }

    @Test("once another request was recorded, the baseline is made again and recorded as the latest")
    func recordedOtherMakesTheRequest() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request("2") }.resolved()  // recorded: the latest
        let made = Made()
        let load = engine.loadHeld(session.token.encoded, sameClient: { _, _ in true }, request: { _ in made.request("1") })
        guard case .now = load else { throw TestFailure("a never-reloaded view went to the session") }
        #expect(made.total == 1, "made: the session's latest is no longer the baseline")
        _ = await session.reschedule(operationAt: 0)
        #expect(a.lastCall?.context.request.header("X-Probe") == "1", "the baseline again is the latest")
    }

    @Test("maxAge: fresh, the baseline is answered without a request; the age old, the request is made and the session runs")
    func maxAge() async throws {
        let origin = ContinuousClock.now
        let elapsed = Locked<Duration>(.zero)
        var configuration = EngineFixture.configuration
        configuration.viewClock = { origin + elapsed.withLock { $0 } }
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session(
            [a], reloadPolicy: .maxAge(.seconds(1)), configuration: configuration)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        let made = Made()
        func load() -> ViewEngine.HeldLoad {
            engine.loadHeld(session.token.encoded, sameClient: { _, _ in true }, request: { _ in made.request() })
        }
        elapsed.withLock { $0 = .milliseconds(999) }
        guard case .now = load() else { throw TestFailure("a fresh view went to the session") }
        #expect(made.total == 0)
        elapsed.withLock { $0 = .seconds(1) }
        guard case .later(let pending) = load() else { throw TestFailure("a view the age old was answered as fresh") }
        #expect(made.total == 1)
        let rerun = try #require(await pending.run())
        #expect(rerun.state.version == 2 && a.performCount == 2)
    }

    @Test("a settled view withdrawn by work on the session answers nothing; the view published after it answers the new view")
    func withdrawnView() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        let before = try #require(engine.sessions.lookup(session.id)?.settled)
        _ = await session.reschedule(operationAt: 0)
        #expect(before.answerBaseline({ _ in true }, now: { .now }) == nil, "retired")
        let republished = try #require(engine.sessions.lookup(session.id)?.settled)
        #expect(republished !== before)
        let made = Made()
        let after = try #require(
            await engine.loadHeld(session.token.encoded, sameClient: { _, _ in true }, request: { _ in made.request() }).resolved())
        #expect(after.state.version == 2, "the new view, not the retired one")
        #expect(made.total == 0, "the same baseline: answered by the republished view")
    }
}
