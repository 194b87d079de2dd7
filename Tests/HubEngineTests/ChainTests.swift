@testable import HubEngine
import HubModel
import Testing

/// The chain beyond the loader tests: construction (S84..S87), execution (S88, S95, S96),
/// DESIGN.md's deadlines and coalescing. Reload policies are in ``ReloadPolicyTests``, pagination
/// in ``PaginationTests``, versions, subscriptions and the memo in ``SessionUpdatesTests``.
@Suite("Content loading chain")
struct ChainTests {
    // MARK: - Construction

    @Test("S84 operations come from every factory in order, errors flow across factories")
    func factoriesInOrder() async throws {
        let prepended = ContentOperationMock(name: "prepended")
        let x = ContentOperationMock(name: "x")
        let y = ContentOperationMock(name: "y")
        let appended = ContentOperationMock(name: "appended")
        prepended.setError(TestError(code: 1))
        y.setError(TestError(code: 2))
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root(EngineFixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { _ in [prepended] },
                ClosureContentOperationFactory { _ in [x, y] },
                ClosureContentOperationFactory { _ in [appended] },
            ])
        let engine = try EngineFixture.engine(features: [feature])
        let (session, state) = try await engine.openSession(for: EngineFixture.request())
        #expect(await session.operationNames == ["prepended", "x", "y", "appended"])
        #expect(x.lastCall?.previousError.testError == TestError(code: 1))
        #expect(appended.lastCall?.previousError.testError == TestError(code: 2))
        #expect(state.failure == nil)
    }

    @Test("S84 a factory makes fresh operations for every session")
    func factoryPerSession() async throws {
        let made = LockedBox<[ContentOperationMock]>([])
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root(EngineFixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { request in
                    let operation = ContentOperationMock.adding(request.viewURI)
                    made.mutate { $0.append(operation) }
                    return [operation]
                }
            ])
        let engine = try EngineFixture.engine(features: [feature])
        _ = try await engine.openSession(for: EngineFixture.request(uri: "hub:test:1"))
        _ = try await engine.openSession(for: EngineFixture.request(uri: "hub:test:2"))
        let operations = made.value
        #expect(operations.count == 2)
        #expect(operations.map(\.performCount) == [1, 1])
        #expect(operations[0] !== operations[1])
    }

    @Test("S85 a chain without operations is a configuration error")
    func noOperations() async throws {
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root(EngineFixture.uri),
            operationFactories: [ClosureContentOperationFactory { _ in [] }])
        let engine = try EngineFixture.engine(features: [feature])
        await #expect(throws: EngineError.self) { try await engine.openSession(for: EngineFixture.request()) }
        do {
            _ = try await engine.openSession(for: EngineFixture.request())
        } catch {
            #expect(error.code == .noOperations)
        }
        #expect(throws: EngineError.self) { try engine.initialViewModel(for: EngineFixture.request()) }
        #expect(engine.sessions.count == 0)
    }

    @Test("S86 S134 an unknown view URI has no feature")
    func unknownViewURI() async throws {
        let engine = try EngineFixture.engine([ContentOperationMock()])
        do {
            _ = try await engine.openSession(for: EngineFixture.request(uri: "hub:other"))
            Issue.record("expected featureNotFound")
        } catch {
            #expect(error.code == .featureNotFound)
        }
        do {
            _ = try engine.initialViewModel(for: EngineFixture.request(uri: "hub:other"))
            Issue.record("expected featureNotFound")
        } catch {
            #expect(error.code == .featureNotFound)
        }
    }

    @Test("S116 initial content without a session")
    func engineInitialViewModel() throws {
        let a = InitialContentOperationMock(ContentOperationMock()) { $0.body["placeholder"].title = "…" }
        let b = ContentOperationMock()
        let engine = try EngineFixture.engine([a, b])
        let initial = try engine.initialViewModel(for: EngineFixture.request())
        #expect(initial.body.map(\.identifier) == ["placeholder"])
        // Not a load: no operation ran and the feature title is not applied (S96).
        #expect(initial.title == nil)
        #expect(a.mock.performCount == 0)
    }

    // MARK: - Execution

    @Test("S88 operations run one at a time, in order")
    func sequential() async throws {
        let gate = TaskGate(permits: 1)
        let a = ContentOperationMock { builder, _, _ in
            await gate.pass()
            builder.body["a"].title = "a"
        }
        let b = ContentOperationMock.adding("b")
        let (_, session, _) = try await EngineFixture.session([a, b])
        let reload = Task { await session.reload() }
        await gate.arrivals(2)
        #expect(b.performCount == 1)  // B waits for A
        gate.release()
        _ = await reload.value
        #expect(b.performCount == 2)
    }

    @Test("S95 a failed reload keeps the previous view model")
    func failedReloadKeepsViewModel() async throws {
        let a = ContentOperationMock { builder, _, number in
            if number == 2 { throw TestError(code: 9) }
            builder.title = "run \(number)"
        }
        let (_, session, first) = try await EngineFixture.session([a])
        #expect(first.title == "run 1")
        let failed = await session.reload()
        #expect(failed.title == "run 1")
        #expect(failed.version == 1)
        #expect(failed.failure?.underlying as? TestError == TestError(code: 9))
        let recovered = await session.reload()
        #expect(recovered.title == "run 3")
        #expect(recovered.version == 2)
        #expect(recovered.failure == nil)
    }

    @Test("S96 a header suppresses the title fallback; snapshots never get it")
    func titleFallbackDetails() async throws {
        let a = ContentOperationMock()
        let b = ContentOperationMock()
        let (_, session, state) = try await EngineFixture.session([a, b])
        #expect(state.title == EngineFixture.featureTitle)
        #expect(b.lastCall?.input.title == nil)
        _ = await session.reschedule(operationAt: 1)
        #expect(b.lastCall?.input.title == nil)

        let withHeader = ContentOperationMock { builder, _, _ in builder.withHeader { _ in } }
        let (_, _, headed) = try await EngineFixture.session([withHeader])
        #expect(headed.viewModel?.header != nil)
        #expect(headed.title == nil)
    }

    @Test("S96 the fallback title is localized with the request's languages")
    func localizedTitleFallback() async throws {
        let feature = Feature(
            identifier: "f", title: "Home", localizedTitles: ["sv": "Hem", "pt": "Início"],
            predicate: .root(EngineFixture.uri), operationFactories: [ClosureContentOperationFactory { _ in [ContentOperationMock()] }])
        let engine = try EngineFixture.engine(features: [feature])
        let (_, swedish) = try await engine.openSession(for: ViewRequest(viewURI: EngineFixture.uri, languages: ["sv-SE"]))
        let (_, brazilian) = try await engine.openSession(for: ViewRequest(viewURI: EngineFixture.uri, languages: ["de", "pt-BR"]))
        let (_, other) = try await engine.openSession(for: ViewRequest(viewURI: EngineFixture.uri, languages: ["de"]))
        #expect(swedish.title == "Hem")
        #expect(brazilian.title == "Início")
        #expect(other.title == "Home")
    }

    @Test("S130 a block operation sees its inputs, adds content and finishes synchronously")
    func blockOperation() async throws {
        let seen = LockedBox<[String]>([])
        let failing = ContentOperationMock()
        failing.setError(TestError(code: 4))
        let block = BlockContentOperation(name: "block") { builder, context in
            seen.mutate {
                $0 = [
                    context.viewURI, context.feature.identifier, context.connectivity.rawValue,
                    "\(context.previousError.testError?.code ?? -1)", "\(context.operationIndex)",
                    "\(context.pageIndex)",
                ]
            }
            builder.body["block"].title = "from a block"
        }
        #expect(block.completesSynchronously)
        let (_, session, state) = try await EngineFixture.session([failing, block], connectivity: .offline)
        #expect(seen.value == [EngineFixture.uri, EngineFixture.featureIdentifier, "offline", "4", "1", "0"])
        #expect(state.viewModel?.body.first?.title == "from a block")
        #expect(await session.operationNames == ["mock", "block"])
        #expect(state.timings.map(\.name) == ["mock", "block"])
        #expect(state.timings.map(\.failed) == [true, false])
    }

    @Test("Operations see the latest request: headers, languages, query")
    func requestReachesOperations() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await EngineFixture.session([a])
        let request = ViewRequest(
            viewURI: EngineFixture.uri + "?tab=2", headers: [("X-Trace", "t1")], languages: ["sv"], client: "ios/1.0")
        _ = await session.load(request)
        let context = try #require(a.lastCall?.context)
        #expect(context.request.header("x-trace") == "t1")
        #expect(context.request.languages == ["sv"])
        #expect(context.request.client == "ios/1.0")
        #expect(context.request.queryValue("tab") == "2")
        #expect(context.sessionID == session.id)
        #expect(context.viewURI == EngineFixture.uri)  // the session's URI
    }

    @Test("DESIGN: a caller that goes away does not cancel the shared run")
    func callerCancellationDoesNotCancelRun() async throws {
        let gate = TaskGate(permits: 1)
        let cancelled = LockedBox<[Bool]>([])
        let a = ContentOperationMock { builder, _, number in
            await gate.pass()
            cancelled.mutate { $0.append(Task.isCancelled) }
            builder.title = "\(number)"
        }
        let (_, session, _) = try await EngineFixture.session([a])
        let caller = Task { await session.reload() }
        await gate.arrivals(2)
        caller.cancel()
        gate.release()
        _ = await caller.value
        #expect(await session.settled().title == "2")
        #expect(cancelled.value == [false, false])
    }

    // MARK: - Deadlines (DESIGN.md)

    @Test("Deadline: a timed-out operation fails with OperationTimeoutError that flows on as previousError")
    func timeoutFlowsAsPreviousError() async throws {
        let slow = ContentOperationMock(name: "slow") { builder, _, _ in
            builder.body["late"].title = "never seen"
            try await Task.sleep(for: .seconds(60))
        }
        // Synchronous: it runs inline, so a loaded machine cannot make it miss the deadline too.
        let next = ContentOperationMock(synchronous: true) { builder, _, _ in builder.body["next"].title = "n" }
        let configuration = ViewEngine.Configuration(operationDeadline: .milliseconds(100), memoEntries: 0)
        let clock = ContinuousClock()
        let start = clock.now
        let (_, session, state) = try await EngineFixture.session([slow, next], configuration: configuration)
        #expect(clock.now - start < .seconds(30))  // the 100 ms deadline, not the operation's 60 s
        let timeout = try #require(next.lastCall?.previousError as? OperationTimeoutError)
        #expect(timeout.operationName == "slow")
        #expect(timeout.deadline == .milliseconds(100))
        // S90: the late operation's snapshot is its input; what it did is discarded.
        #expect(next.lastCall?.inputBodyIdentifiers == [])
        #expect(state.failure == nil)
        #expect(state.bodyIdentifiers == ["next"])
        #expect(state.timings.map(\.failed) == [true, false])
        #expect(await session.isLoading == false)
    }

    @Test("Deadline: a timed-out last operation fails the load; its late output is discarded (S90, S92)")
    func lateOutputOfTimedOutOperationIsDiscarded() async throws {
        let gate = TaskGate()
        let late = ContentOperationMock(name: "late") { builder, _, _ in
            await gate.pass()  // resumed by the deadline's cancellation
            builder.title = "too late"
        }
        let configuration = ViewEngine.Configuration(operationDeadline: .milliseconds(50), memoEntries: 0)
        let (_, session, state) = try await EngineFixture.session([late], configuration: configuration)
        let failure = try #require(state.failure)
        #expect(failure.underlying is OperationTimeoutError)
        #expect(failure.operationName == "late")
        #expect(state.viewModel == nil)
        // The operation did finish after its deadline; nothing it produced reached the session.
        for _ in 0..<100 where late.lastCall?.output == nil { await Task.yield() }
        #expect(await session.state.viewModel == nil)
        #expect(await session.state.version == 0)
    }

    // MARK: - Queueing and coalescing (S101, S104, DESIGN.md)

    /// Deterministic operations: the output depends on the input only.
    static func deterministicChain(gate: TaskGate? = nil) -> [ContentOperationMock] {
        let a = ContentOperationMock(name: "a") { builder, _, _ in
            if let gate { await gate.pass() }
            builder.body["a"].title = "a"
        }
        let b = ContentOperationMock(name: "b") { builder, _, _ in
            builder.body["b"].title = "b saw \(builder.body.identifiers)"
        }
        let c = ContentOperationMock(name: "c") { builder, _, _ in
            builder.body["c"].title = "c saw \(builder.body.identifiers)"
            builder.title = "c"
        }
        return [a, b, c]
    }

    @Test("Coalescing: reschedule(2) then reschedule(1) queued behind a running chain become one run from 1")
    func coalescing() async throws {
        let gate = TaskGate(permits: 1)
        let chain = Self.deterministicChain(gate: gate)
        let (_, session, _) = try await EngineFixture.session(chain)
        var updates = await session.updates().makeAsyncIterator()
        #expect(await collect(1, from: &updates).map(\.version) == [1])

        let full = Task { await session.reschedule(operationAt: 0) }
        await gate.arrivals(2)  // op 0 is running and blocked
        let fromTwo = Task { await session.reschedule(operationAt: 2) }
        let fromOne = Task { await session.reschedule(operationAt: 1) }
        await waitForPendingCallers(session, 3)
        #expect(await session.queuedWork == [.main(from: 1)])
        gate.release()
        let results = [await full.value, await fromTwo.value, await fromOne.value]

        // op 1 ran once more for both reschedules, op 2 once (not twice) for them.
        #expect(chain.map(\.performCount) == [2, 3, 3])
        // Everyone gets the drained state; the view model changed in one emission... or none,
        // since the chain is deterministic: the content equals the first load's.
        #expect(Set(results.map(\.version)).count == 1)
        #expect(await session.isLoading == false)

        // The result equals running the same requests one after the other.
        let reference = Self.deterministicChain()
        let (_, inOrder, _) = try await EngineFixture.session(reference)
        _ = await inOrder.reschedule(operationAt: 0)
        _ = await inOrder.reschedule(operationAt: 2)
        let expected = await inOrder.reschedule(operationAt: 1)
        #expect(reference.map(\.performCount) == [2, 3, 4])
        let final = try #require(results.last?.viewModel)
        #expect(final == expected.viewModel)
    }

    @Test("Coalescing keeps runs in order around a queued page")
    func coalescingDoesNotCrossPages() async throws {
        let gate = TaskGate(permits: 1)
        let a = PaginatedOperationMock(
            ContentOperationMock { builder, context, _ in
                await gate.pass()
                builder.body["A-\(context.pageIndex)"].title = "A"
            },
            page: { builder, _, page in builder.body["A-\(page)"].title = "A" })
        let b = ContentOperationMock.adding("B")
        let (_, session, _) = try await EngineFixture.session([a, b])
        let full = Task { await session.reload() }
        await gate.arrivals(2)
        let first = Task { await session.reschedule(operationAt: 1) }
        await waitForPendingCallers(session, 2)
        let page = Task { await session.loadNextPage() }
        await waitForPendingCallers(session, 3)
        let last = Task { await session.reschedule(operationAt: 1) }
        await waitForPendingCallers(session, 4)
        #expect(await session.queuedWork == [.main(from: 1), .page, .main(from: 1)])
        gate.release()
        _ = await (full.value, first.value, page.value)
        let state = await last.value
        #expect(state.bodyIdentifiers == ["A-0", "B", "A-1"])
        #expect(b.performCount == 4)
    }

    // DESIGN: S104's duplicate full chains are coalesced: loads arriving while a chain runs
    // add one more full run, not one each.
    @Test("S104 loads while a chain runs are coalesced into one more run")
    func loadsWhileRunningCoalesce() async throws {
        let gate = TaskGate(permits: 1)
        let a = ContentOperationMock { builder, _, number in
            await gate.pass()
            builder.title = "\(number)"
        }
        let (_, session, _) = try await EngineFixture.session([a], reloadPolicy: .always)
        let running = Task { await session.load(EngineFixture.request()) }
        await gate.arrivals(2)
        let queued = (0..<3).map { _ in Task { await session.load(EngineFixture.request()) } }
        await waitForPendingCallers(session, 4)
        gate.open()
        _ = await running.value
        for load in queued { #expect(await load.value.title == "3") }
        #expect(a.performCount == 3)
    }

    // S115 removed (DESIGN): a connectivity change with an always-reload policy runs the chain once.
    @Test("S115 a connectivity change runs the chain once")
    func connectivityChangeRunsOnce() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await EngineFixture.session([a], reloadPolicy: .always)
        _ = await session.load(EngineFixture.request(.offline))
        #expect(a.performCount == 2)
    }
}
