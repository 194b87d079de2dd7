@testable import HubEngine
import HubModel
import HubSync
import Testing

/// `ViewEngine.loadHeld`: a load of a held session that its reload policy answers without a
/// run is served from the session's published `SettledView`, off the session's actor, with
/// the answer `ViewSession.load` would give, and the session still learns the request.
@Suite("Held session loads")
struct HeldLoadTests {
    static func request(header value: String? = nil, _ connectivity: Connectivity = .online) -> ViewRequest {
        ViewRequest(viewURI: EngineFixture.uri, headers: value.map { [("X-Probe", $0)] } ?? [], connectivity: connectivity)
    }

    @Test("a session loaded again publishes its settled view; later loads answer from it with the same state")
    func publishedAfterSecondUse() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, first) = try await EngineFixture.session([a], reloadPolicy: .never)
        // Opened, never loaded again: nothing published (a one-shot session costs no settled view).
        #expect(engine.sessions.lookup(session.id)?.settled == nil)
        let second = try #require(await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved())
        #expect(second.session === session)
        #expect(second.state.version == first.version)
        let settled = try #require(engine.sessions.lookup(session.id)?.settled)
        let third = try #require(await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved())
        #expect(third.state.version == first.version)
        #expect(third.state.viewModel == first.viewModel)
        #expect(engine.sessions.lookup(session.id)?.settled === settled, "answered from the same settled view")
        #expect(a.performCount == 1)
        #expect(await engine.loadHeld("AAAAAAAAAAAAAAAAAAAAAA") { _ in Self.request() }.resolved() == nil, "not held")
    }

    @Test("work on the session withdraws the settled view: the next load answers the new view")
    func rescheduleWithdraws() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        let before = try #require(engine.sessions.lookup(session.id)?.settled)
        let rescheduled = await session.reschedule(operationAt: 0)
        #expect(rescheduled.version == 2)
        let after = try #require(await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved())
        #expect(after.state.version == 2)
        #expect(after.state.viewModel?.body.first?.title == "a #2")
        #expect(before.answer(Self.request()) == nil, "a retired view answers nothing")
        #expect(engine.sessions.lookup(session.id)?.settled !== before)
    }

    @Test("a load answered from the settled view is the session's latest request: the next run sees its headers")
    func answeredRequestIsAdopted() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request(header: "1") }.resolved()
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request(header: "2") }.resolved()
        #expect(a.performCount == 1)
        _ = await session.reschedule(operationAt: 0)
        #expect(a.lastCall?.context.request.header("X-Probe") == "2")
    }

    @Test("the latest request wins: back to the baseline's headers after another is recorded; the trace context alone records nothing")
    func latestRequestWins() async throws {
        func request(_ value: String, trace: String) -> ViewRequest {
            ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Probe", value), ("traceparent", trace)])
        }
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in request("1", trace: "t1") }.resolved()  // through the actor: the baseline
        _ = await engine.loadHeld(session.token.encoded) { _ in request("1", trace: "t2") }.resolved()  // same client request: not recorded
        _ = await session.reschedule(operationAt: 0)
        #expect(a.lastCall?.context.request.header("traceparent") == "t1")
        _ = await engine.loadHeld(session.token.encoded) { _ in request("1", trace: "t3") }.resolved()  // republished after the run
        _ = await engine.loadHeld(session.token.encoded) { _ in request("2", trace: "t4") }.resolved()  // recorded
        _ = await engine.loadHeld(session.token.encoded) { _ in request("1", trace: "t5") }.resolved()  // recorded too: the latest
        _ = await session.reschedule(operationAt: 0)
        #expect(a.lastCall?.context.request.header("X-Probe") == "1")
        #expect(a.lastCall?.context.request.header("traceparent") == "t5")
        #expect(a.performCount == 3)
    }

    @Test("a connectivity change or a stale maxAge goes to the session, which runs the chain")
    func policyDecides() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        let offline = try #require(await engine.loadHeld(session.token.encoded) { _ in Self.request(.offline) }.resolved())
        #expect(a.performCount == 2)
        #expect(a.connectivities.last == .offline)
        #expect(offline.state.version > 1)

        let stale = ContentOperationMock.adding("s")
        let (staleEngine, staleSession, _) = try await EngineFixture.session([stale], reloadPolicy: .maxAge(.zero))
        for _ in 0..<3 { _ = await staleEngine.loadHeld(staleSession.token.encoded) { _ in Self.request() }.resolved() }
        #expect(stale.performCount == 4, "maxAge 0: every load runs the chain")
    }

    @Test("an ended session publishes nothing and is not held")
    func endedSession() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .never)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        let settled = try #require(engine.sessions.lookup(session.id)?.settled)
        await session.close()
        #expect(settled.answer(Self.request()) == nil)
        engine.endSession(session.id)
        #expect(await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved() == nil)
    }
}

/// A request's trace comes from its ``RequestTrace`` (the server's request context), read only
/// when an operation asks for it.
@Suite("Request trace")
struct RequestTraceSourceTests {
    final class Source: RequestTrace {
        let reads = Locked(0)
        let parent: String
        init(_ parent: String) { self.parent = parent }
        var trace: (parent: String?, state: String?) {
            reads.withLock { $0 += 1 }
            return (parent, "vendor=1")
        }
    }

    @Test("header() reads traceparent and tracestate from the trace source, other names from the headers")
    func headerReadsTheSource() {
        let source = Source("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        let request = ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Probe", "1"), ("traceparent", "client's")], trace: source)
        #expect(request.header("X-Probe") == "1")
        #expect(source.reads.withLock { $0 } == 0, "reading another header does not make the trace")
        #expect(request.header("TraceParent") == source.parent, "the server's span, not a header of that name")
        #expect(request.header("tracestate") == "vendor=1")
        #expect(request.with(viewURI: "hub:other").header("traceparent") == source.parent)
        #expect(ViewRequest(viewURI: EngineFixture.uri, headers: [("traceparent", "t")]).header("traceparent") == "t")
    }

    @Test("an operation that asks gets the trace of the request that ran it; a request the settled view answers makes none; a later run no request made carries none")
    func operationsReadTheTrace() async throws {
        let a = ContentOperationMock.adding("a")
        let (engine, session, _) = try await EngineFixture.session([a], reloadPolicy: .always)
        let first = Source("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        _ = await engine.loadHeld(session.token.encoded) { _ in ViewRequest(viewURI: EngineFixture.uri, trace: first) }.resolved()
        #expect(a.lastCall?.context.request.header("traceparent") == first.parent, "the run of the first request")
        #expect(await session.request.trace == nil, "the session keeps no trace once that run is over")
        let policyNever = ContentOperationMock.adding("b")
        let (neverEngine, held, _) = try await EngineFixture.session([policyNever], reloadPolicy: .never)
        _ = await neverEngine.loadHeld(held.token.encoded) { _ in ViewRequest(viewURI: EngineFixture.uri, trace: first) }.resolved()
        let second = Source("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b8-01")
        _ = await neverEngine.loadHeld(held.token.encoded) { _ in ViewRequest(viewURI: EngineFixture.uri, trace: second) }.resolved()
        #expect(second.reads.withLock { $0 } == 0, "answered by the settled view: no trace made")
        _ = await held.reschedule(operationAt: 0)
        // A run no request made (a reschedule, an invalidation) is not part of an earlier
        // request's trace: its upstream fetches start their own.
        #expect(policyNever.lastCall?.context.request.header("traceparent") == nil)
    }
}
