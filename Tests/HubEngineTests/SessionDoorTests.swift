import HubEngine
import HubModel
import Testing

/// The session door (`ViewEngine.session(named:need:request:)`): one entry for every request that
/// names a session, held or rebuilt, answered now or later, and nothing for a token it refuses.
@Suite("Session door")
struct SessionDoorTests {
    private static func request(_ uri: String) -> ViewRequest { EngineFixture.request(uri: uri) }

    @Test("a held session answers now: as it is for .session (no load, no run), with its settled view for .view")
    func heldSessionAnswersNow() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        guard case .now(let found) = try engine.session(named: session.token.encoded, need: .session, request: Self.request)
        else { throw TestFailure("a held session needed a run for .session") }
        #expect(found.session === session && found.state == nil && found.rebuiltState == nil)
        // The second use publishes the settled view; from then on .view answers without a run.
        _ = try await engine.session(named: session.token.encoded, need: .view, request: Self.request).require(request: Self.request)
        guard case .now(let viewed) = try engine.session(named: session.token.encoded, need: .view, request: Self.request)
        else { throw TestFailure("a settled view went to the session") }
        #expect(viewed.state?.viewModel?.body.first?.title == "a #1")
        #expect(a.performCount == 1)
    }

    @Test("a token it refuses (garbage, forged, revoked) names nothing: run answers nil, require throws session_not_found, no chain runs")
    func refusedTokensNameNothing() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a])
        var forged = Array(session.token.encoded)
        forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
        for text in ["garbage", String(forged)] {
            let answer = try engine.session(named: text, need: .session, request: Self.request)
            guard case .later(let pending) = answer else { throw TestFailure("\(text) answered now") }
            #expect(try await pending.run(request: Self.request) == nil)
            await #expect(throws: EngineError.sessionNotFound) { try await answer.require(request: Self.request) }
        }
        let text = session.token.encoded
        _ = try await engine.revoke(engine.presentedToken(text))
        let revoked = try engine.session(named: text, need: .view, request: Self.request)
        #expect(try await revoked.found(request: Self.request) == nil)
        #expect(a.performCount == 1, "a refused token ran the chain")
    }

    @Test("a verified token this process does not hold rebuilds its session once, under the same identifier, with its first load")
    func verifiedTokenRebuilds() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await EngineFixture.session([a])
        let text = session.token.encoded
        // Another replica (or this one restarted): the same keys, no session held.
        let engine = try EngineFixture.engine([a])
        guard case .later(let pending) = try engine.session(named: text, need: .view, request: Self.request)
        else { throw TestFailure("a session not held was answered now") }
        let found = try #require(try await pending.run(request: Self.request))
        #expect(found.session.id == session.id && found.session !== session)
        #expect(found.state?.viewModel?.body.first?.title == "a #2")
        // Held again, by its identifier: .session answers it as it is.
        let again = try await engine.session(named: text, need: .session, request: Self.request).require(request: Self.request)
        #expect(again.session === found.session)
        #expect(a.performCount == 2)
    }

    @Test("a rebuild whose first load fails: .session throws the load's problem and keeps nothing; .view answers the failed state")
    func failedRebuild() async throws {
        let failing = ContentOperationMock(name: "upstream") { _, _, number in
            if number > 1 { throw TestError(code: 7) }
        }
        let (_, session, _) = try await EngineFixture.session([failing])
        let text = session.token.encoded
        let engine = try EngineFixture.engine([failing])
        let answer = try engine.session(named: text, need: .session, request: Self.request)
        await #expect(throws: ViewLoadError.self) { try await answer.require(request: Self.request) }
        #expect(engine.session(session.id) == nil, "a failed rebuild was kept")
        let viewed = try await engine.session(named: text, need: .view, request: Self.request).require(request: Self.request)
        #expect(viewed.state?.viewModel == nil && viewed.state?.failure != nil)
    }

    @Test("HEAD's rebuild (store false) answers the view and keeps no session")
    func unstoredRebuild() async throws {
        let (_, session, _) = try await EngineFixture.session([ContentOperationMock.adding("a")])
        let engine = try EngineFixture.engine([ContentOperationMock.adding("a")])
        let found = try await engine.session(named: session.token.encoded, need: .view, request: Self.request)
            .require(request: Self.request, store: false)
        #expect(found.state?.viewModel != nil)
        #expect(engine.session(session.id) == nil)
    }

    @Test("a rebuild the admission refuses is 429 too_many_sessions; a held session is never asked")
    func admission() async throws {
        let (holding, session, _) = try await EngineFixture.session([ContentOperationMock.adding("a")])
        let text = session.token.encoded
        let refuse: () -> SessionAdmission = { .refuse(retryAfterSeconds: 3) }
        let held = try await holding.session(named: text, need: .session, request: Self.request)
            .require(request: Self.request, admission: refuse)
        #expect(held.session === session)
        let engine = try EngineFixture.engine([ContentOperationMock.adding("a")])
        do {
            _ = try await engine.session(named: text, need: .session, request: Self.request)
                .require(request: Self.request, admission: refuse)
            Issue.record("a refused rebuild was answered")
        } catch let error as EngineError {
            #expect(error.code == .sessionRefused && error.retryAfterSeconds == 3)
        }
        #expect(engine.session(session.id) == nil)
    }

    @Test("the door times a session's idleness by the caller's `now`: past the idle timeout it is expired, not answered")
    func idlenessByCallersInstant() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a])
        let text = session.token.encoded
        let now = ContinuousClock.now
        guard case .now = try engine.session(named: text, need: .session, now: now, request: Self.request)
        else { throw TestFailure("a session used just now was not answered now") }
        // The default idle timeout is 30 minutes: an instant past it ends the session here.
        let later = now + .seconds(1801)
        guard case .later = try engine.session(named: text, need: .session, now: later, request: Self.request)
        else { throw TestFailure("a session idle past its timeout was answered now") }
        #expect(engine.session(session.id) == nil, "the expired session is still held")
    }
}
