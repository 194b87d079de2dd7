@testable import HubEngine
import HubModel
import HubSync
import Testing

/// The chain beyond the 32 loader tests: construction (S84..S87), execution (S88, S95, S96),
/// DESIGN.md's deadlines and coalescing, reload policies (S105..S109), pagination details
/// (S120, S123, S126), subscriptions and the chain memo.
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
            identifier: "f", title: "F", predicate: .root(Fixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { _ in [prepended] },
                ClosureContentOperationFactory { _ in [x, y] },
                ClosureContentOperationFactory { _ in [appended] },
            ])
        let engine = try Fixture.engine(features: [feature])
        let (session, state) = try await engine.openSession(for: Fixture.request())
        #expect(session.operationNames == ["prepended", "x", "y", "appended"])
        #expect(x.lastCall?.previousError.testError == TestError(code: 1))
        #expect(appended.lastCall?.previousError.testError == TestError(code: 2))
        #expect(state.failure == nil)
    }

    @Test("S84 a factory makes fresh operations for every session")
    func factoryPerSession() async throws {
        let made = LockedBox<[ContentOperationMock]>([])
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root(Fixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { request in
                    let operation = ContentOperationMock.adding(request.viewURI)
                    made.mutate { $0.append(operation) }
                    return [operation]
                }
            ])
        let engine = try Fixture.engine(features: [feature])
        _ = try await engine.openSession(for: Fixture.request(uri: "hub:test:1"))
        _ = try await engine.openSession(for: Fixture.request(uri: "hub:test:2"))
        let operations = made.value
        #expect(operations.count == 2)
        #expect(operations.map(\.performCount) == [1, 1])
        #expect(operations[0] !== operations[1])
    }

    @Test("S85 a chain without operations is a configuration error")
    func noOperations() async throws {
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root(Fixture.uri),
            operationFactories: [ClosureContentOperationFactory { _ in [] }])
        let engine = try Fixture.engine(features: [feature])
        await #expect(throws: EngineError.self) { try await engine.openSession(for: Fixture.request()) }
        do {
            _ = try await engine.openSession(for: Fixture.request())
        } catch {
            #expect(error.code == .noOperations)
        }
        #expect(throws: EngineError.self) { try engine.initialViewModel(for: Fixture.request()) }
        #expect(engine.sessions.count == 0)
    }

    @Test("S86 S134 an unknown view URI has no feature")
    func unknownViewURI() async throws {
        let engine = try Fixture.engine([ContentOperationMock()])
        do {
            _ = try await engine.openSession(for: Fixture.request(uri: "hub:other"))
            Issue.record("expected featureNotFound")
        } catch {
            #expect(error.code == .featureNotFound)
        }
        do {
            _ = try engine.initialViewModel(for: Fixture.request(uri: "hub:other"))
            Issue.record("expected featureNotFound")
        } catch {
            #expect(error.code == .featureNotFound)
        }
    }

    @Test("S116 initial content without a session")
    func engineInitialViewModel() throws {
        let a = InitialContentOperationMock(ContentOperationMock()) { $0.body["placeholder"].title = "…" }
        let b = ContentOperationMock()
        let engine = try Fixture.engine([a, b])
        let initial = try engine.initialViewModel(for: Fixture.request())
        #expect(initial.body.map(\.identifier) == ["placeholder"])
        // Not a load: no operation ran and the feature title is not applied (S96).
        #expect(initial.title == nil)
        #expect(a.mock.performCount == 0)
    }

    // MARK: - Execution

    @Test("S88 operations run one at a time, in order")
    func sequential() async throws {
        let gate = Gate(permits: 1)
        let a = ContentOperationMock { builder, _, _ in
            await gate.pass()
            builder.body["a"].title = "a"
        }
        let b = ContentOperationMock.adding("b")
        let (_, session, _) = try await Fixture.session([a, b])
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
        let (_, session, first) = try await Fixture.session([a])
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
        let (_, session, state) = try await Fixture.session([a, b])
        #expect(state.title == Fixture.featureTitle)
        #expect(b.lastCall?.input.title == nil)
        _ = await session.reschedule(operationAt: 1)
        #expect(b.lastCall?.input.title == nil)

        let withHeader = ContentOperationMock { builder, _, _ in builder.withHeader { _ in } }
        let (_, _, headed) = try await Fixture.session([withHeader])
        #expect(headed.viewModel?.header != nil)
        #expect(headed.title == nil)
    }

    @Test("S96 the fallback title is localized with the request's languages")
    func localizedTitleFallback() async throws {
        let feature = Feature(
            identifier: "f", title: "Home", localizedTitles: ["sv": "Hem", "pt": "Início"],
            predicate: .root(Fixture.uri), operationFactories: [ClosureContentOperationFactory { _ in [ContentOperationMock()] }])
        let engine = try Fixture.engine(features: [feature])
        let (_, swedish) = try await engine.openSession(for: ViewRequest(viewURI: Fixture.uri, languages: ["sv-SE"]))
        let (_, brazilian) = try await engine.openSession(for: ViewRequest(viewURI: Fixture.uri, languages: ["de", "pt-BR"]))
        let (_, other) = try await engine.openSession(for: ViewRequest(viewURI: Fixture.uri, languages: ["de"]))
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
        let (_, session, state) = try await Fixture.session([failing, block], connectivity: .offline)
        #expect(seen.value == [Fixture.uri, Fixture.featureIdentifier, "offline", "4", "1", "0"])
        #expect(state.viewModel?.body.first?.title == "from a block")
        #expect(session.operationNames == ["mock", "block"])
        #expect(state.timings.map(\.name) == ["mock", "block"])
        #expect(state.timings.map(\.failed) == [true, false])
    }

    @Test("Operations see the latest request: headers, languages, query")
    func requestReachesOperations() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await Fixture.session([a])
        let request = ViewRequest(
            viewURI: Fixture.uri + "?tab=2", headers: [("X-Trace", "t1")], languages: ["sv"], client: "ios/1.0")
        _ = await session.load(request)
        let context = try #require(a.lastCall?.context)
        #expect(context.request.header("x-trace") == "t1")
        #expect(context.request.languages == ["sv"])
        #expect(context.request.client == "ios/1.0")
        #expect(context.request.queryValue("tab") == "2")
        #expect(context.sessionID == session.id)
        #expect(context.viewURI == Fixture.uri)  // the session's URI
    }

    @Test("DESIGN: a caller that goes away does not cancel the shared run")
    func callerCancellationDoesNotCancelRun() async throws {
        let gate = Gate(permits: 1)
        let cancelled = LockedBox<[Bool]>([])
        let a = ContentOperationMock { builder, _, number in
            await gate.pass()
            cancelled.mutate { $0.append(Task.isCancelled) }
            builder.title = "\(number)"
        }
        let (_, session, _) = try await Fixture.session([a])
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
        let (_, session, state) = try await Fixture.session([slow, next], configuration: configuration)
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
        let gate = Gate()
        let late = ContentOperationMock(name: "late") { builder, _, _ in
            await gate.pass()  // resumed by the deadline's cancellation
            builder.title = "too late"
        }
        let configuration = ViewEngine.Configuration(operationDeadline: .milliseconds(50), memoEntries: 0)
        let (_, session, state) = try await Fixture.session([late], configuration: configuration)
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
    static func deterministicChain(gate: Gate? = nil) -> [ContentOperationMock] {
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
        let gate = Gate(permits: 1)
        let chain = Self.deterministicChain(gate: gate)
        let (_, session, _) = try await Fixture.session(chain)
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
        let (_, inOrder, _) = try await Fixture.session(reference)
        _ = await inOrder.reschedule(operationAt: 0)
        _ = await inOrder.reschedule(operationAt: 2)
        let expected = await inOrder.reschedule(operationAt: 1)
        #expect(reference.map(\.performCount) == [2, 3, 4])
        let final = try #require(results.last?.viewModel)
        #expect(final == expected.viewModel)
    }

    @Test("Coalescing keeps runs in order around a queued page")
    func coalescingDoesNotCrossPages() async throws {
        let gate = Gate(permits: 1)
        let a = PaginatedOperationMock(
            ContentOperationMock { builder, context, _ in
                await gate.pass()
                builder.body["A-\(context.pageIndex)"].title = "A"
            },
            page: { builder, _, page in builder.body["A-\(page)"].title = "A" })
        let b = ContentOperationMock.adding("B")
        let (_, session, _) = try await Fixture.session([a, b])
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
        let gate = Gate(permits: 1)
        let a = ContentOperationMock { builder, _, number in
            await gate.pass()
            builder.title = "\(number)"
        }
        let (_, session, _) = try await Fixture.session([a], reloadPolicy: .always)
        let running = Task { await session.load(Fixture.request()) }
        await gate.arrivals(2)
        let queued = (0..<3).map { _ in Task { await session.load(Fixture.request()) } }
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
        let (_, session, _) = try await Fixture.session([a], reloadPolicy: .always)
        _ = await session.load(Fixture.request(.offline))
        #expect(a.performCount == 2)
    }

    // MARK: - Reload policy

    @Test("S105 S108 reload() ignores the policy")
    func reloadIgnoresPolicy() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await Fixture.session([a], reloadPolicy: .never)
        _ = await session.load(Fixture.request())
        #expect(a.performCount == 1)
        let state = await session.reload()
        #expect(a.performCount == 2)
        #expect(state.version == 2)
    }

    @Test("S105 the policy is not consulted before a successful load")
    func policyNotConsultedBeforeSuccess() async throws {
        let a = ContentOperationMock { builder, _, number in
            if number == 1 { throw TestError(code: 1) }
            builder.title = "ok"
        }
        let (_, session, first) = try await Fixture.session([a], reloadPolicy: .never)
        #expect(first.viewModel == nil)
        let state = await session.load(Fixture.request())
        #expect(a.performCount == 2)
        #expect(state.title == "ok")
        _ = await session.load(Fixture.request())
        #expect(a.performCount == 2)
    }

    @Test("S109 maxAge: a fresh view is kept, a stale one reloads and emits")
    func maxAgePolicy() async throws {
        let fresh = ContentOperationMock.adding("a")
        let (_, freshSession, _) = try await Fixture.session([fresh], reloadPolicy: .maxAge(.seconds(3600)))
        _ = await freshSession.load(Fixture.request())
        #expect(fresh.performCount == 1)

        let stale = ContentOperationMock.adding("a")
        let (_, staleSession, _) = try await Fixture.session([stale], reloadPolicy: .maxAge(.zero))
        let state = await staleSession.load(Fixture.request())
        #expect(stale.performCount == 2)
        #expect(state.version == 2)
        #expect(state.viewModel?.body.first?.title == "a #2")
    }

    // MARK: - Pagination details

    @Test("S123 in pagination mode previousError is the operation's own last error")
    func paginationPreviousErrorIsOwn() async throws {
        let b = PaginatedOperationMock.appending("B")
        let a = PaginatedOperationMock.appending("A")
        b.mock.setError(TestError(code: 2))
        let (_, session, first) = try await Fixture.session([b, a])
        #expect(first.failure == nil)
        #expect(a.mock.lastCall?.previousError.testError == TestError(code: 2))

        a.setPageError(TestError(code: 5))
        let failedPage = await session.loadNextPage()
        #expect(b.pageCalls.last?.previousError.testError == TestError(code: 2))  // its own, not op -1's
        #expect(a.pageCalls.last?.previousError == nil)  // its own main run succeeded
        #expect(failedPage.failure?.underlying as? TestError == TestError(code: 5))
        #expect(failedPage.version == 1)  // S95: the view stays

        a.setPageError(nil)
        let state = await session.loadNextPage()
        #expect(b.pageCalls.last?.previousError == nil)
        #expect(a.pageCalls.last?.previousError.testError == TestError(code: 5))
        #expect(state.failure == nil)
        #expect(a.pageIndexes == [1, 2])
    }

    @Test("S119 S120 without a paginated operation loadNextPage is a no-op")
    func noPaginatedOperation() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await Fixture.session([a])
        let state = await session.loadNextPage()
        #expect(state.version == 1)
        #expect(a.performCount == 1)
    }

    @Test("S126 rescheduling op i>0 keeps pages appended before i and the page index")
    func reschedulingLaterOperationKeepsPages() async throws {
        let a = PaginatedOperationMock.appending("A")
        let b = ContentOperationMock { builder, _, _ in builder.body["B-0"].title = "B" }
        let (_, session, _) = try await Fixture.session([a, b])
        _ = await session.loadNextPage()
        let state = await session.reschedule(operationAt: 1)
        #expect(b.lastCall?.inputBodyIdentifiers == ["A-0", "B-0", "A-1"])
        #expect(state.bodyIdentifiers == ["A-0", "B-0", "A-1"])
        _ = await session.loadNextPage()
        #expect(a.pageIndexes == [1, 2])
    }

    @Test("DESIGN: a full reload resets the page index")
    func reloadResetsPageIndex() async throws {
        let a = PaginatedOperationMock.appending("A")
        let (_, session, _) = try await Fixture.session([a])
        _ = await session.loadNextPage()
        _ = await session.loadNextPage()
        let reloaded = await session.reload()
        #expect(reloaded.bodyIdentifiers == ["A-0"])
        _ = await session.loadNextPage()
        #expect(a.pageIndexes == [1, 2, 1])
    }

    // MARK: - Versions, subscriptions, lifetime

    @Test("updates(): the current state first, then one state per change; unchanged views are not emitted")
    func updatesStream() async throws {
        let title = LockedBox("one")
        let a = ContentOperationMock { builder, _, _ in builder.title = title.value }
        let (engine, session, _) = try await Fixture.session([a])
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
        let (engine, session, _) = try await Fixture.session([ContentOperationMock()])
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
        let engine = try Fixture.engine([a], configuration: configuration)
        let (_, first) = try await engine.openSession(for: Fixture.request())
        let (_, second) = try await engine.openSession(for: Fixture.request())
        #expect(a.performCount == 1)
        #expect(second.timings.map(\.memoized) == [true])
        let firstModel = try #require(first.viewModel)
        let secondModel = try #require(second.viewModel)
        #expect(firstModel === secondModel)
        // Offline is another input: another run.
        _ = try await engine.openSession(for: Fixture.request(.offline))
        #expect(a.performCount == 2)
    }
}

/// A tiny lock-protected box for values shared with `@Sendable` closures.
final class LockedBox<Value: Sendable>: Sendable {
    private let storage: Locked<Value>
    init(_ value: Value) { storage = Locked(value) }
    var value: Value { storage.withLock { $0 } }
    func mutate(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}

/// Findings: behaviours where the engine first contradicted the reference or DESIGN.md.
@Suite("Regressions")
struct RegressionTests {
    // S110: every operation of a chain gets the connectivity the chain started with
    // (ContentContext.connectivity's contract); a change arriving mid-chain is for the
    // full re-run it schedules (S111).
    @Test("S110 a connectivity change arriving mid-chain does not leak into the running chain")
    func connectivityCapturedPerChain() async throws {
        let gate = Gate(permits: 1)
        let a = ContentOperationMock { builder, context, _ in
            await gate.pass()
            builder.body["a"].title = context.connectivity.rawValue
        }
        let b = ContentOperationMock { builder, context, _ in builder.body["b"].title = context.connectivity.rawValue }
        let (_, session, _) = try await Fixture.session([a, b], reloadPolicy: .never)
        let running = Task { await session.reload() }
        await gate.arrivals(2)
        let change = Task { await session.load(Fixture.request(.offline)) }
        await waitForPendingCallers(session, 2)
        gate.open()
        _ = await running.value
        let state = await change.value
        #expect(a.connectivities == [.online, .online, .offline])
        #expect(b.connectivities == [.online, .online, .offline])
        #expect(state.viewModel?.body.map(\.title) == ["offline", "offline"])
    }

    // The same leak polluted the chain memo: the run started online stored offline output
    // under the online key, and every later online session was served it.
    @Test("S110 the chain memo never stores a run under another connectivity's key")
    func memoNotPollutedByConnectivityChange() async throws {
        let gate = Gate()
        let sessionID = LockedBox<String?>(nil)
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root(Fixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { _ in
                    let a = ContentOperationMock { builder, context, number in
                        sessionID.mutate { $0 = context.sessionID }
                        if number == 1 { await gate.pass() }
                        builder.body["a"].title = context.connectivity.rawValue
                    }
                    let b = ContentOperationMock { builder, context, _ in
                        builder.body["b"].title = context.connectivity.rawValue
                    }
                    a.setMemoizationKey("a")
                    b.setMemoizationKey("b")
                    return [a, b]
                }
            ])
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), memoEntries: 16)
        let engine = try Fixture.engine(features: [feature], configuration: configuration)
        // First session: its first run (online) blocks in A; the client reports offline meanwhile.
        let open = Task { try await engine.openSession(for: Fixture.request(.online)) }
        await gate.arrivals(1)
        let id = try #require(sessionID.value)
        let session = try #require(engine.session(id))
        let change = Task { await session.load(Fixture.request(.offline)) }
        await waitForPendingCallers(session, 2)
        gate.open()
        _ = try await open.value
        _ = await change.value
        // A new online session must see online content, memoized or not.
        let (_, online) = try await engine.openSession(for: Fixture.request(.online))
        #expect(online.viewModel?.body.map(\.title) == ["online", "online"])
    }

    // The memo promises equal results for equal keys; a deadline miss is the engine's, not
    // the operation's result, so it must not be shared with every later session.
    @Test("Deadline misses are not memoized")
    func timeoutsNotMemoized() async throws {
        let calls = LockedBox(0)
        let remote = Feature(
            identifier: "remote", title: "R", predicate: .root(Fixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { _ in
                    // Later sessions' operations run inline (no deadline), so only the first can miss it.
                    let operation = ContentOperationMock(name: "remote", synchronous: calls.value > 0) { builder, _, _ in
                        let call = calls.value + 1
                        calls.mutate { $0 = call }
                        if call == 1 { try await Task.sleep(for: .seconds(10)) }
                        builder.body["a"].title = "content"
                    }
                    operation.setMemoizationKey("k")
                    return [operation]
                }
            ])
        let configuration = ViewEngine.Configuration(operationDeadline: .milliseconds(100), memoEntries: 16)
        let engine = try Fixture.engine(features: [remote], configuration: configuration)
        let (_, first) = try await engine.openSession(for: Fixture.request())
        #expect(first.failure?.underlying is OperationTimeoutError)
        let (_, second) = try await engine.openSession(for: Fixture.request())
        #expect(calls.value == 2)
        #expect(second.failure == nil)
        #expect(second.bodyIdentifiers == ["a"])
    }

    // S96 + memo: the shared view model carries the title fallback for the languages in its
    // key; a request in another language arriving mid-run must not store its title there.
    @Test("S96 the memo's shared view model keeps the title of its key's languages")
    func memoTitleNotPollutedByLanguageChange() async throws {
        let version = LockedBox(1)
        let gate = Gate(permits: 1)
        let feature = Feature(
            identifier: "f", title: "Home", localizedTitles: ["sv": "Hem"], predicate: .root(Fixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { _ in
                    let operation = MemoizedGatedOperation(version: version, gate: gate)
                    return [operation]
                }
            ],
            reloadPolicy: .never)
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), memoEntries: 16)
        let engine = try Fixture.engine(features: [feature], configuration: configuration)
        let english = ViewRequest(viewURI: Fixture.uri, languages: ["en"])
        let (session, first) = try await engine.openSession(for: english)
        #expect(first.title == "Home")
        // New content (a new key): the reload runs, and blocks; a Swedish request arrives.
        version.mutate { $0 = 2 }
        let reload = Task { await session.reload() }
        await gate.arrivals(2)
        let swedish = Task { await session.load(ViewRequest(viewURI: Fixture.uri, languages: ["sv"])) }
        await waitForPendingCallers(session, 2)
        gate.open()
        _ = await reload.value
        #expect(await swedish.value.title == "Hem")
        // Another English session of the same content gets the English title.
        let (_, other) = try await engine.openSession(for: english)
        #expect(other.title == "Home")
        #expect(other.bodyIdentifiers == ["v2"])
    }

    // S137 with DESIGN's segment awareness: a root that already ends at a segment boundary
    // matches everything below it.
    @Test("S137 a root ending with a separator matches what follows it")
    func rootEndingWithSeparator() {
        let predicate = ViewURIPredicate.root("hub:home:")
        #expect(predicate.matches("hub:home:x"))
        #expect(predicate.matches("hub:home:"))
        #expect(!predicate.matches("hub:home"))
        #expect(ViewURIPredicate.root("hub:").matches("hub:anything"))
        #expect(ViewURIPredicate.root("https://host/").matches("https://host/path"))
    }

    // S128: observers see every action, whatever its outcome, and may ask to be rescheduled;
    // an action that throws must not drop their reschedule.
    @Test("S128 an observer's reschedule survives a failing action")
    func rescheduleSurvivesFailingAction() async throws {
        let factory = RecordingActionFactory.standard()
        let observer = ActionObservingOperationMock(ContentOperationMock.adding("observer")) { _ in true }
        let (_, session, _) = try await Fixture.session([observer], actions: [("test", factory)])
        await #expect(throws: TestError(code: 42)) {
            try await session.perform(ActionInvocation(action: "test:fail", componentIdentifier: nil))
        }
        let state = await session.settled()
        #expect(observer.mock.performCount == 2)
        #expect(state.viewModel?.body.first?.title == "observer #2")
    }
}

/// A memoizable operation whose key is a shared content version; it waits on a gate.
final class MemoizedGatedOperation: ContentOperation {
    let version: LockedBox<Int>
    let gate: Gate

    init(version: LockedBox<Int>, gate: Gate) {
        self.version = version
        self.gate = gate
    }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        await gate.pass()
        builder.body["v\(version.value)"].title = "content"
    }

    func memoizationKey(context: ContentContext) -> String? { "v\(version.value)" }
}
