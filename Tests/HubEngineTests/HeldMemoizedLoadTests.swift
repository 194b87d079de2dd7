@testable import HubEngine
import HubModel
import HubSync
import Testing

/// A held session under `reload: always` whose chain the memo would answer with the view it
/// already shows is answered from its settled view, as under `reload: never`: the re-run is
/// skipped only while every operation's memo key is known to keep its value.
@Suite("Held loads under reload always answered by the memo")
struct HeldMemoizedLoadTests {
    static func request(header value: String? = nil) -> ViewRequest {
        ViewRequest(viewURI: EngineFixture.uri, headers: value.map { [("X-Probe", $0)] } ?? [])
    }

    /// A memoizable operation (key `key`, the given lifetime), an engine with the memo on and a
    /// session loaded twice (the second load publishes the settled view), and the chain reports.
    static func fixture(
        key: String = "k", lifetime: MemoizationKeyLifetime
    ) async throws -> (engine: ViewEngine, session: ViewSession, operation: ContentOperationMock, reports: Locked<[ChainReport]>) {
        let operation = ContentOperationMock.adding("a")
        operation.setMemoizationKey(key)
        operation.setMemoizationKeyLifetime(lifetime)
        let reports = Locked<[ChainReport]>([])
        var configuration = EngineFixture.configuration
        configuration.memoEntries = 16
        configuration.chainObserver = { report in reports.withLock { $0.append(report) } }
        let (engine, session, _) = try await EngineFixture.session([operation], reloadPolicy: .always, configuration: configuration)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        return (engine, session, operation, reports)
    }

    static func isReady(_ load: ViewEngine.HeldLoad) -> Bool {
        if case .now = load { return true }
        return false
    }

    @Test("keys that last until the definitions change: loads answer from the settled view, reported as memo hits")
    func stableKeysAnswerWithoutRun() async throws {
        let (engine, session, operation, reports) = try await Self.fixture(lifetime: .untilDefinitionsChange)
        let before = reports.withLock { $0.count }
        for _ in 0..<3 {
            let load = engine.loadHeld(session.token.encoded) { _ in Self.request() }
            #expect(Self.isReady(load), "answered without a hop onto the session")
            let state = try #require(await load.resolved()).state
            #expect(state.version == 1)
            #expect(state.isMemoized, "reported as the memo's answer")
            #expect(state.viewModel?.body.first?.title == "a #1")
        }
        #expect(operation.performCount == 1)
        let added = reports.withLock { Array($0[before...]) }
        #expect(added.count == 3)
        #expect(added.allSatisfy { $0.timings.allSatisfy(\.memoized) })
    }

    @Test("a key valid while a check passes: a failed check sends the load to the session, which runs the chain")
    func checkedKeys() async throws {
        let valid = Locked(true)
        let (engine, session, operation, _) = try await Self.fixture(lifetime: .whileValid { valid.withLock { $0 } })
        #expect(Self.isReady(engine.loadHeld(session.token.encoded) { _ in Self.request() }))
        // The source changed: the key changes and the check fails.
        operation.setMemoizationKey("k2")
        valid.withLock { $0 = false }
        let load = engine.loadHeld(session.token.encoded) { _ in Self.request() }
        #expect(!Self.isReady(load))
        let state = try #require(await load.resolved()).state
        #expect(operation.performCount == 2)
        #expect(state.viewModel?.body.first?.title == "a #2")
        #expect(state.version == 2)
    }

    @Test("an unknown lifetime (the default) keeps every load going through the session")
    func unknownLifetime() async throws {
        let (engine, session, operation, _) = try await Self.fixture(lifetime: .unknown)
        for _ in 0..<2 {
            #expect(!Self.isReady(engine.loadHeld(session.token.encoded) { _ in Self.request() }))
        }
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        #expect(operation.performCount == 1, "the memo answers each re-run")
    }

    @Test("another client request is not what the key was made from: it goes to the session")
    func otherRequest() async throws {
        let (engine, session, _, _) = try await Self.fixture(lifetime: .untilDefinitionsChange)
        #expect(Self.isReady(engine.loadHeld(session.token.encoded) { _ in Self.request() }))
        #expect(!Self.isReady(engine.loadHeld(session.token.encoded) { _ in Self.request(header: "other") }))
    }

    @Test("the same fields in another order are the same client request: two orders polled in turn stay on the settled view")
    func fieldOrder() async throws {
        let (engine, session, operation, _) = try await Self.fixture(lifetime: .untilDefinitionsChange)
        // Two HTTP stacks of one client (or a load generator's two threads) send its fields in
        // different orders; only the order of one name's fields carries meaning (RFC 9110 5.3).
        let orders: [[(name: String, value: String)]] = [
            [("X-Probe", "1"), ("Hub-Client", "ios/1"), ("x-probe", "2")],
            [("Hub-Client", "ios/1"), ("X-Probe", "1"), ("x-probe", "2")],
            [("X-Probe", "1"), ("x-probe", "2"), ("Hub-Client", "ios/1")],
        ]
        func request(_ headers: [(name: String, value: String)]) -> ViewRequest {
            ViewRequest(viewURI: EngineFixture.uri, headers: headers)
        }
        // The first goes to the session (another client request than the fixture's), which
        // publishes the view again with it as the baseline.
        _ = await engine.loadHeld(session.token.encoded) { _ in request(orders[0]) }.resolved()
        for round in 0..<2 {
            for headers in orders {
                #expect(Self.isReady(engine.loadHeld(session.token.encoded) { _ in request(headers) }), "round \(round): \(headers)")
            }
        }
        #expect(operation.performCount == 1)
        // The order of one name's fields does count.
        #expect(!Self.isReady(engine.loadHeld(session.token.encoded) { _ in
            request([("Hub-Client", "ios/1"), ("x-probe", "2"), ("X-Probe", "1")])
        }))
    }

    @Test("a partial run is not the memo's answer: after a reschedule the next load goes to the session")
    func rescheduleWithdraws() async throws {
        let (first, second) = (ContentOperationMock.adding("a"), ContentOperationMock.adding("b"))
        for operation in [first, second] {
            operation.setMemoizationKey(operation.name)
            operation.setMemoizationKeyLifetime(.untilDefinitionsChange)
        }
        var configuration = EngineFixture.configuration
        configuration.memoEntries = 16
        let (engine, session, _) = try await EngineFixture.session([first, second], reloadPolicy: .always, configuration: configuration)
        _ = await engine.loadHeld(session.token.encoded) { _ in Self.request() }.resolved()
        #expect(Self.isReady(engine.loadHeld(session.token.encoded) { _ in Self.request() }))
        let rescheduled = await session.reschedule(operationAt: 1)
        #expect(rescheduled.viewModel?.body.map(\.title) == ["a #1", "b #2"])
        let load = engine.loadHeld(session.token.encoded) { _ in Self.request() }
        #expect(!Self.isReady(load))
        let state = try #require(await load.resolved()).state
        #expect(state.isMemoized, "the full re-run is the memo's again")
        #expect(Self.isReady(engine.loadHeld(session.token.encoded) { _ in Self.request() }))
    }
}
