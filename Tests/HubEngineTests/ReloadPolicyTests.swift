import HubEngine
import HubModel
import HubSync
import Testing

/// Reload policies (S105..S109): what `GET /view?session=` does on a held session. The loader
/// tests' and the chain's checks of the policy, in one suite.
@Suite("Reload policy")
struct ReloadPolicyTests {
    // The loader's S105 and the chain's S105/S108 in one: the policy keeps the view on load(),
    // and reload() ignores it.
    @Test("S105 S108 testReloadPolicyPreventingReload; reload() ignores the policy")
    func reloadPolicyPreventingReload() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        for _ in 0..<2 { _ = await session.load(EngineFixture.request()) }
        #expect(a.performCount == 1)
        let state = await session.reload()
        #expect(a.performCount == 2)
        #expect(state.version == 2)
    }

    @Test("S106 testNilReloadPolicyAlwaysResultingInReload")
    func nilReloadPolicyAlwaysResultingInReload() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await EngineFixture.session([a], reloadPolicy: .always)
        for _ in 0..<2 { _ = await session.load(EngineFixture.request()) }
        #expect(a.performCount == 3)
    }

    @Test("S105 the policy is not consulted before a successful load")
    func policyNotConsultedBeforeSuccess() async throws {
        let a = ContentOperationMock { builder, _, number in
            if number == 1 { throw TestError(code: 1) }
            builder.title = "ok"
        }
        let (_, session, first) = try await EngineFixture.session([a], reloadPolicy: .never)
        #expect(first.viewModel == nil)
        let state = await session.load(EngineFixture.request())
        #expect(a.performCount == 2)
        #expect(state.title == "ok")
        _ = await session.load(EngineFixture.request())
        #expect(a.performCount == 2)
    }

    @Test("S109 maxAge: a fresh view is kept, a stale one reloads and emits")
    func maxAgePolicy() async throws {
        let fresh = ContentOperationMock.adding("a")
        let (_, freshSession, _) = try await EngineFixture.session([fresh], reloadPolicy: .maxAge(.seconds(3600)))
        _ = await freshSession.load(EngineFixture.request())
        #expect(fresh.performCount == 1)

        let stale = ContentOperationMock.adding("a")
        let (_, staleSession, _) = try await EngineFixture.session([stale], reloadPolicy: .maxAge(.zero))
        let state = await staleSession.load(EngineFixture.request())
        #expect(stale.performCount == 2)
        #expect(state.version == 2)
        #expect(state.viewModel?.body.first?.title == "a #2")
    }

    @Test("S109 maxAge by the engine's clock: the settled view answers until it is the age old, then the session re-runs, and the new view is fresh again")
    func maxAgeByTheEngineClock() async throws {
        let origin = ContinuousClock.now
        let elapsed = Locked<Duration>(.zero)
        var configuration = EngineFixture.configuration
        configuration.viewClock = { origin + elapsed.withLock { $0 } }
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .maxAge(.seconds(1)), configuration: configuration)
        func load() throws -> SessionAnswer {
            try engine.session(named: session.token.encoded, need: .view) { _ in EngineFixture.request() }
        }
        func resolved() async throws { _ = try await load().found { _ in EngineFixture.request() } }
        try await resolved()  // the second use publishes the settled view
        #expect(a.performCount == 1)
        elapsed.withLock { $0 = .milliseconds(999) }
        guard case .now(let kept) = try load() else { throw TestFailure("a fresh view went to the session") }
        #expect(kept.state?.version == 1 && a.performCount == 1)
        elapsed.withLock { $0 = .seconds(1) }
        guard case .later(let pending) = try load() else { throw TestFailure("a view the age old was answered as fresh") }
        let rerun = try #require(try await pending.run { _ in EngineFixture.request() })
        #expect(a.performCount == 2)
        #expect(rerun.state?.version == 2 && rerun.state?.viewModel?.body.first?.title == "a #2")
        elapsed.withLock { $0 = .milliseconds(1999) }
        try await resolved()
        #expect(a.performCount == 2, "loaded again at 1 s: fresh until 2 s")
        elapsed.withLock { $0 = .seconds(2) }
        try await resolved()
        #expect(a.performCount == 3)
    }
}
