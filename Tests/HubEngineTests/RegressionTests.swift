@testable import HubEngine
import HubModel
import HubSync
import Testing

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
        let gate = TaskGate(permits: 1)
        let a = ContentOperationMock { builder, context, _ in
            await gate.pass()
            builder.body["a"].title = context.connectivity.rawValue
        }
        let b = ContentOperationMock { builder, context, _ in builder.body["b"].title = context.connectivity.rawValue }
        let (_, session, _) = try await EngineFixture.session([a, b], reloadPolicy: .never)
        let running = Task { await session.reload() }
        await gate.arrivals(2)
        let change = Task { await session.load(EngineFixture.request(.offline)) }
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
        let gate = TaskGate()
        let sessionID = LockedBox<String?>(nil)
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root(EngineFixture.uri),
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
        let engine = try EngineFixture.engine(features: [feature], configuration: configuration)
        // First session: its first run (online) blocks in A; the client reports offline meanwhile.
        let open = Task { try await engine.openSession(for: EngineFixture.request(.online)) }
        await gate.arrivals(1)
        let id = try #require(sessionID.value)
        let session = try #require(engine.session(id))
        let change = Task { await session.load(EngineFixture.request(.offline)) }
        await waitForPendingCallers(session, 2)
        gate.open()
        _ = try await open.value
        _ = await change.value
        // A new online session must see online content, memoized or not.
        let (_, online) = try await engine.openSession(for: EngineFixture.request(.online))
        #expect(online.viewModel?.body.map(\.title) == ["online", "online"])
    }

    // The memo promises equal results for equal keys; a deadline miss is the engine's, not
    // the operation's result, so it must not be shared with every later session.
    @Test("Deadline misses are not memoized")
    func timeoutsNotMemoized() async throws {
        let calls = LockedBox(0)
        let remote = Feature(
            identifier: "remote", title: "R", predicate: .root(EngineFixture.uri),
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
        let engine = try EngineFixture.engine(features: [remote], configuration: configuration)
        let (_, first) = try await engine.openSession(for: EngineFixture.request())
        #expect(first.failure?.underlying is OperationTimeoutError)
        let (_, second) = try await engine.openSession(for: EngineFixture.request())
        #expect(calls.value == 2)
        #expect(second.failure == nil)
        #expect(second.bodyIdentifiers == ["a"])
    }

    // S96 + memo: the shared view model carries the title fallback for the languages in its
    // key; a request in another language arriving mid-run must not store its title there.
    @Test("S96 the memo's shared view model keeps the title of its key's languages")
    func memoTitleNotPollutedByLanguageChange() async throws {
        let version = LockedBox(1)
        let gate = TaskGate(permits: 1)
        let feature = Feature(
            identifier: "f", title: "Home", localizedTitles: ["sv": "Hem"], predicate: .root(EngineFixture.uri),
            operationFactories: [
                ClosureContentOperationFactory { _ in
                    let operation = MemoizedGatedOperation(version: version, gate: gate)
                    return [operation]
                }
            ],
            reloadPolicy: .never)
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), memoEntries: 16)
        let engine = try EngineFixture.engine(features: [feature], configuration: configuration)
        let english = ViewRequest(viewURI: EngineFixture.uri, languages: ["en"])
        let (session, first) = try await engine.openSession(for: english)
        #expect(first.title == "Home")
        // New content (a new key): the reload runs, and blocks; a Swedish request arrives.
        version.mutate { $0 = 2 }
        let reload = Task { await session.reload() }
        await gate.arrivals(2)
        let swedish = Task { await session.load(ViewRequest(viewURI: EngineFixture.uri, languages: ["sv"])) }
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
        let (_, session, _) = try await EngineFixture.session([observer], actions: [("test", factory)])
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
    let gate: TaskGate

    init(version: LockedBox<Int>, gate: TaskGate) {
        self.version = version
        self.gate = gate
    }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        await gate.pass()
        builder.body["v\(version.value)"].title = "content"
    }

    func memoizationKey(context: ContentContext) -> String? { "v\(version.value)" }
}
