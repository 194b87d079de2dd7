import HubEngine
import HubModel
import HubSync
import Testing

/// An operation that counts the `test:inc` actions of its session and writes the count into
/// the view's title, asking to be rescheduled after each one.
final class CounterOperation: ActionObservingContentOperation {
    private let state = Locked((increments: 0, performs: 0))

    var name: String { "counter" }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let increments = state.withLock { state in
            state.performs += 1
            return state.increments
        }
        await Task.yield()  // a real suspension point inside the chain
        builder.title = "count \(increments)"
    }

    func actionPerformed(_ action: ObservedAction) -> Bool {
        guard action.context.actionIdentifier == "test:inc", action.performed else { return false }
        state.withLock { $0.increments += 1 }
        return true
    }

    var increments: Int { state.withLock { $0.increments } }
    var performs: Int { state.withLock { $0.performs } }
}

/// Many sessions at once, and one session under many concurrent requests: every session must
/// end in the state its requests imply. Run under TSan too (`--sanitize=thread`).
@Suite("Concurrency")
struct ConcurrencyTests {
    static let incrementFactory = ClosureActionFactory(["inc": { _ in .performed }])

    @Test("1 000 sessions at once with reschedules and actions interleaved")
    func thousandSessions() async throws {
        let counters = LockedBox<[String: CounterOperation]>([:])
        let feature = Feature(
            identifier: "f", title: "F", predicate: .root("hub:c"),
            operationFactories: [
                ClosureContentOperationFactory { request in
                    let content = ContentOperationMock(name: "content") { builder, context, _ in
                        builder.body["row"].title = context.viewURI
                        builder.body["row"].withTarget { $0.addAction("test:inc") }
                    }
                    let counter = CounterOperation()
                    counters.mutate { $0[request.viewURI] = counter }
                    return [content, counter]
                }
            ])
        let engine = try EngineFixture.engine(features: [feature], actions: [("test", Self.incrementFactory)])
        let sessionCount = 1000
        let actionsPerSession = 4

        let results = try await withThrowingTaskGroup(of: (uri: String, state: ViewState, loading: Bool).self) { group in
            for index in 0..<sessionCount {
                group.addTask {
                    let uri = "hub:c:\(index)"
                    let (session, _) = try await engine.openSession(for: ViewRequest(viewURI: uri))
                    try await withThrowingTaskGroup(of: Void.self) { requests in
                        for step in 0..<actionsPerSession {
                            requests.addTask {
                                // Alternate named actions on the component and selections of it.
                                let invocation = step.isMultiple(of: 2)
                                    ? ActionInvocation(action: "test:inc", componentIdentifier: "row")
                                    : ActionInvocation(action: nil, componentIdentifier: "row")
                                let outcome = try await session.perform(invocation)
                                #expect(outcome.performed)
                            }
                            requests.addTask { _ = await session.reschedule(operationAt: step % 2) }
                        }
                        requests.addTask { _ = await session.load(ViewRequest(viewURI: uri)) }
                        try await requests.waitForAll()
                    }
                    let state = await session.settled()
                    return (uri, state, await session.isLoading)
                }
            }
            var results: [(uri: String, state: ViewState, loading: Bool)] = []
            for try await result in group { results.append(result) }
            return results
        }

        #expect(results.count == sessionCount)
        let counterTable = counters.value
        var mismatches = 0
        for result in results {
            let counter = counterTable[result.uri]
            let ok = result.state.title == "count \(actionsPerSession)" && result.state.failure == nil
                && result.state.viewModel?.component(withIdentifier: "row")?.title == result.uri
                && !result.loading && counter?.increments == actionsPerSession
                && (counter?.performs ?? 0) >= 2
            if !ok { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(engine.sessions.count == sessionCount)
        #expect(engine.sessions.statistics.created == sessionCount)
    }

    @Test("One session under concurrent pages, reschedules and actions ends consistent")
    func oneSessionManyRequests() async throws {
        let paginated = PaginatedOperationMock.appending("P")
        let counter = CounterOperation()
        let (_, session, _) = try await EngineFixture.session([paginated, counter], actions: [("test", Self.incrementFactory)])
        let rounds = 50
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<rounds {
                group.addTask { _ = await session.loadNextPage() }
                group.addTask { _ = try? await session.perform(ActionInvocation(action: "test:inc", componentIdentifier: nil)) }
                group.addTask { _ = await session.reschedule(operationAt: 1) }
            }
        }
        let state = await session.settled()
        #expect(state.title == "count \(rounds)")
        #expect(state.bodyIdentifiers == (0...rounds).map { "P-\($0)" })
        #expect(paginated.pageIndexes == Array(1...rounds))
        #expect(paginated.mock.performCount == 1)  // op 0 never re-ran in main mode
        #expect(counter.increments == rounds)
        #expect(await session.isLoading == false)
    }

    @Test("Subscribers see monotonically increasing versions under concurrent changes")
    func monotonicVersions() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await EngineFixture.session([a])
        let stream = await session.updates()
        let reader = Task {
            var versions: [Int] = []
            for await state in stream {
                versions.append(state.version)
                if state.version >= 21 { break }
            }
            return versions
        }
        for _ in 0..<20 { _ = await session.reschedule(operationAt: 0) }
        let versions = await reader.value
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == versions.count)
        #expect(versions.last == 21)
    }
}
