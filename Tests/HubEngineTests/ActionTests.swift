import HubEngine
import HubModel
import HubSync
import Testing

/// An action factory that records what it created and performed.
final class RecordingActionFactory: ActionFactory {
    typealias Body = @Sendable (ActionContext) async throws -> ActionResult

    private let bodies: [String: Body]
    private let created = Locked<[String]>([])
    private let performed = Locked<[ActionContext]>([])

    init(_ bodies: [String: Body]) {
        self.bodies = bodies
    }

    /// `yes` performs, `no` does not, `never` performs (tests assert it is not reached),
    /// `chain` chains to `test:target` with custom data, `target` performs, `fail` throws,
    /// `chain-vetoed` chains to `test:vetoed`.
    static func standard(gate: TaskGate? = nil) -> RecordingActionFactory {
        RecordingActionFactory([
            "yes": { _ in .performed },
            "no": { _ in .notPerformed },
            "never": { _ in .performed },
            "chain": { _ in ActionResult(performed: true, chainedAction: "test:target", chainedCustomData: ["k": "v"]) },
            "target": { _ in .performed },
            "loop": { _ in ActionResult(performed: true, chainedAction: "test:loop") },
            "vetoed": { _ in .performed },
            "fail": { _ in throw TestError(code: 42) },
            "slow": { _ in
                await gate?.pass()
                return .performed
            },
        ])
    }

    func makeAction(name: String) -> (any Action)? {
        guard let body = bodies[name] else { return nil }
        created.withLock { $0.append(name) }
        return ClosureAction { [self] context in
            self.performed.withLock { $0.append(context) }
            return try await body(context)
        }
    }

    var createdNames: [String] { created.withLock { $0 } }
    var performedContexts: [ActionContext] { performed.withLock { $0 } }
    var performedNames: [String] { performedContexts.map(\.actionIdentifier.name) }
}

/// Section 5 (S142..S157) and S128/S129 with DESIGN.md's decisions: a vetoed action reports
/// `performed: false` (S145), a chained action reports trigger `chained` (S157), unknown
/// components and actions are errors.
@Suite("Actions")
struct ActionTests {
    /// Content with a header, a row whose target has three actions, a plain row and a parent
    /// with a selectable child.
    static func content() -> ContentOperationMock {
        ContentOperationMock(name: "content") { builder, _, _ in
            builder.withHeader { $0.title = "Header" }
            builder.body["row"].title = "Row"
            builder.body["row"].withTarget { target in
                target.addAction("test:no")
                target.addAction("test:yes")
                target.addAction("test:never")
            }
            builder.body["plain"].title = "Plain"
            builder.body["parent"].children["child"].withTarget { $0.addAction("test:yes") }
            builder.body["vetoed-only"].withTarget { $0.addAction("test:vetoed") }
        }
    }

    struct Setup {
        let engine: ViewEngine
        let session: ViewSession
        let factory: RecordingActionFactory
        let content: ContentOperationMock
        let observer: ActionObservingOperationMock
        let last: ContentOperationMock
    }

    /// [content, observer, last]; the observer asks to be rescheduled when `reschedule` says so.
    static func setup(
        defaultHandler: (any ActionHandler)? = nil, featureHandler: (any ActionHandler)? = nil,
        reloadPolicy: ReloadPolicy = .always, gate: TaskGate? = nil,
        reschedule: @escaping @Sendable (ObservedAction) -> Bool = { _ in false },
        extra: [any ContentOperation] = []
    ) async throws -> Setup {
        let factory = RecordingActionFactory.standard(gate: gate)
        let content = Self.content()
        let observer = ActionObservingOperationMock(ContentOperationMock.adding("observer"), reschedule: reschedule)
        let last = ContentOperationMock.adding("last")
        let (engine, session, _) = try await EngineFixture.session(
            [content, observer, last] + extra, reloadPolicy: reloadPolicy, actions: [("test", factory)],
            defaultHandler: defaultHandler, featureHandler: featureHandler)
        return Setup(engine: engine, session: session, factory: factory, content: content, observer: observer, last: last)
    }

    // MARK: - Registry

    @Test("S142 one factory per namespace; hub is reserved; names are validated")
    func registryValidation() throws {
        let factory = RecordingActionFactory.standard()
        #expect(throws: ActionRegistry.ValidationError.self) {
            try ActionRegistry(factories: [("test", factory), ("test", factory)])
        }
        #expect(throws: ActionRegistry.ValidationError.self) { try ActionRegistry(factories: [("hub", factory)]) }
        #expect(throws: ActionRegistry.ValidationError.self) { try ActionRegistry(factories: [("", factory)]) }
        #expect(throws: ActionRegistry.ValidationError.self) { try ActionRegistry(factories: [("a:b", factory)]) }
        // The same factory under another namespace is fine.
        let registry = try ActionRegistry(factories: [("test", factory), ("other", factory)])
        #expect(registry.namespaces == ["hub", "other", "test"])
        #expect(registry.hasNamespace("test"))
        #expect(!registry.hasNamespace("nope"))
    }

    @Test("S143 actions are created by namespace and name, fresh for every perform")
    func actionCreation() async throws {
        let registry = try ActionRegistry(factories: [("test", RecordingActionFactory.standard())])
        #expect(registry.makeAction("test:yes") != nil)
        #expect(registry.makeAction("test:unknown") == nil)
        #expect(registry.makeAction("nope:yes") == nil)
        #expect(registry.makeAction("hub:reload") != nil)
        #expect(registry.makeAction("hub:next-page") != nil)
        #expect(registry.makeAction("hub:other") == nil)

        let setup = try await Self.setup()
        for _ in 0..<2 {
            _ = try await setup.session.perform(ActionInvocation(action: "test:yes", componentIdentifier: nil))
        }
        #expect(setup.factory.createdNames == ["yes", "yes"])
    }

    // MARK: - Performing

    @Test("S151 S153 a component action: trigger component, the component (even the header), custom data")
    func componentAction() async throws {
        let setup = try await Self.setup()
        let current = try #require(await setup.session.state.viewModel)
        let outcome = try await setup.session.perform(
            ActionInvocation(action: "test:yes", componentIdentifier: "header", customData: ["k": 1]))
        #expect(outcome.performed)
        let context = try #require(setup.factory.performedContexts.first)
        #expect(setup.factory.performedContexts.count == 1)
        #expect(context.trigger == .component)
        #expect(context.actionIdentifier == "test:yes")
        #expect(context.componentModel?.identifier == "header")
        #expect(context.customData == ["k": 1])
        #expect(context.feature == FeatureInfo(identifier: EngineFixture.featureIdentifier, title: EngineFixture.featureTitle))
        #expect(context.viewURI == EngineFixture.uri)
        #expect(context.viewModel == current)
        #expect(context.sessionID == setup.session.id)
        #expect(context.request.viewURI == EngineFixture.uri)
    }

    @Test("A named action without a component")
    func actionWithoutComponent() async throws {
        let setup = try await Self.setup()
        let outcome = try await setup.session.perform(ActionInvocation(action: "test:no", componentIdentifier: nil))
        #expect(!outcome.performed)
        #expect(setup.factory.performedContexts.first?.componentModel == nil)
    }

    // DESIGN: a vetoed action reports performed false (S145 counted it as handled).
    @Test("S145 S128 a vetoed action is not executed, reports false, and observers still see it")
    func veto() async throws {
        let setup = try await Self.setup(defaultHandler: VetoListActionHandler(vetoed: ["test:yes"]))
        let outcome = try await setup.session.perform(ActionInvocation(action: "test:yes", componentIdentifier: "row"))
        #expect(!outcome.performed)
        #expect(setup.factory.performedContexts.isEmpty)
        let observed = try #require(setup.observer.observedActions.first)
        #expect(setup.observer.observedActions.count == 1)
        #expect(observed.vetoed)
        #expect(!observed.performed)
        #expect(observed.context.actionIdentifier == "test:yes")
        #expect(observed.context.componentModel?.identifier == "row")
    }

    @Test("S144 the feature's handler is used, else the default handler")
    func handlerChoice() async throws {
        let own = try await Self.setup(
            defaultHandler: VetoListActionHandler(vetoed: ["test:no"]),
            featureHandler: VetoListActionHandler(vetoed: ["test:yes"]))
        #expect(try await !own.session.perform(ActionInvocation(action: "test:yes", componentIdentifier: nil)).performed)
        _ = try await own.session.perform(ActionInvocation(action: "test:no", componentIdentifier: nil))
        #expect(own.factory.performedNames == ["no"])  // the default handler is not asked

        let fallback = try await Self.setup(defaultHandler: VetoListActionHandler(vetoed: ["test:yes"]))
        #expect(try await !fallback.session.perform(ActionInvocation(action: "test:yes", componentIdentifier: nil)).performed)
        #expect(fallback.factory.performedNames.isEmpty)
    }

    @Test("S128 observers see every action; one asking to be rescheduled re-runs from its index")
    func observersReschedule() async throws {
        let setup = try await Self.setup(reschedule: { $0.context.actionIdentifier == "test:no" })
        let before = await setup.session.state.version
        _ = try await setup.session.perform(ActionInvocation(action: "test:yes", componentIdentifier: nil))
        #expect(setup.observer.mock.performCount == 1)
        let outcome = try await setup.session.perform(ActionInvocation(action: "test:no", componentIdentifier: "row"))
        #expect(!outcome.performed)
        #expect(setup.observer.observedActions.map(\.context.actionIdentifier) == ["test:yes", "test:no"])
        #expect(setup.observer.observedActions.map(\.performed) == [true, false])
        #expect(setup.content.performCount == 1)  // before the observer: not re-run
        #expect(setup.observer.mock.performCount == 2)
        #expect(setup.last.performCount == 2)
        // The outcome carries the view after the chain settled.
        #expect(outcome.state.version == before + 1)
        #expect(outcome.state.viewModel?.component(withIdentifier: "last")?.title == "last #2")
    }

    @Test("S146 S150 a selection tries the target's actions in order and stops at the first performed")
    func selectionOrder() async throws {
        let setup = try await Self.setup()
        let outcome = try await setup.session.perform(
            ActionInvocation(action: nil, componentIdentifier: "row", customData: ["pos": 3]))
        #expect(outcome.performed)
        #expect(setup.factory.performedNames == ["no", "yes"])
        #expect(setup.factory.performedContexts.allSatisfy { $0.trigger == .selection })
        #expect(setup.factory.performedContexts.allSatisfy { $0.componentModel?.identifier == "row" })
        #expect(setup.factory.performedContexts.allSatisfy { $0.customData == ["pos": 3] })
        #expect(setup.observer.observedActions.map(\.context.actionIdentifier) == ["test:no", "test:yes"])
    }

    @Test("S148 a selection with nothing performed answers false")
    func selectionNotPerformed() async throws {
        let setup = try await Self.setup(defaultHandler: VetoListActionHandler(vetoed: ["test:vetoed"]))
        // Only a title: nothing to perform (opening target.uri is the client's job).
        #expect(try await !setup.session.perform(ActionInvocation(action: nil, componentIdentifier: "plain")).performed)
        // Every action vetoed: false, and the observers saw it.
        #expect(try await !setup.session.perform(ActionInvocation(action: nil, componentIdentifier: "vetoed-only")).performed)
        #expect(setup.factory.performedContexts.isEmpty)
        #expect(setup.observer.observedActions.map(\.vetoed) == [true])
        // Neither an action nor a component.
        #expect(try await !setup.session.perform(ActionInvocation(action: nil, componentIdentifier: nil)).performed)
    }

    @Test("S150 selecting a child works like a root component")
    func childSelection() async throws {
        let setup = try await Self.setup()
        let outcome = try await setup.session.perform(
            ActionInvocation(action: nil, componentIdentifier: "child", customData: ["x": true]))
        #expect(outcome.performed)
        let context = try #require(setup.factory.performedContexts.first)
        #expect(context.componentModel?.identifier == "child")
        #expect(context.customData == ["x": true])
    }

    @Test("S149 the handler sees the selection's context once per action")
    func handlerSeesSelectionContext() async throws {
        let handler = RecordingHandler(vetoing: ["test:yes"])
        let setup = try await Self.setup(defaultHandler: handler)
        let current = try #require(await setup.session.state.viewModel)
        let outcome = try await setup.session.perform(ActionInvocation(action: nil, componentIdentifier: "row"))
        // no (not performed), yes (vetoed: not performed), never (performed).
        #expect(outcome.performed)
        #expect(handler.contexts.map(\.actionIdentifier) == ["test:no", "test:yes", "test:never"])
        #expect(handler.contexts.allSatisfy { $0.viewModel == current && $0.viewURI == EngineFixture.uri })
        #expect(setup.factory.performedNames == ["no", "never"])
    }

    @Test("S129 S152 an operation performs an action: trigger contentOperation, no component")
    func actionFromOperation() async throws {
        let results = LockedBox<[Bool]>([])
        let performer = ContentOperationMock(name: "performer") { builder, context, number in
            let performed = await context.actions.performAction("test:yes", customData: ["from": "op"])
            results.mutate { $0.append(performed) }
            builder.body["performer"].title = "\(number)"
        }
        let setup = try await Self.setup(extra: [performer])
        // S154: during the first load there is no view model yet: nothing performed.
        #expect(results.value == [false])
        #expect(setup.factory.performedContexts.isEmpty)
        #expect(setup.observer.observedActions.isEmpty)

        _ = await setup.session.reschedule(operationAt: 3)
        #expect(results.value == [false, true])
        let context = try #require(setup.factory.performedContexts.first)
        #expect(context.trigger == .contentOperation)
        #expect(context.componentModel == nil)
        #expect(context.customData == ["from": "op"])
        #expect(setup.observer.observedActions.map(\.context.trigger) == [.contentOperation])
    }

    @Test("S129 an operation's action that reschedules runs after the current chain")
    func actionFromOperationReschedules() async throws {
        let performer = ContentOperationMock(name: "performer") { builder, context, number in
            if number == 2 { await context.actions.performAction("test:no") }
            builder.body["performer"].title = "\(number)"
        }
        let setup = try await Self.setup(
            reschedule: { $0.context.actionIdentifier == "test:no" }, extra: [performer])
        let state = await setup.session.reschedule(operationAt: 3)
        // The observer's re-run (from index 1) was queued behind the running chain.
        #expect(setup.observer.mock.performCount == 2)
        #expect(performer.performCount == 3)
        #expect(state.viewModel?.component(withIdentifier: "performer")?.title == "3")
        #expect(await setup.session.isLoading == false)
    }

    @Test("S129 a context kept after its run performs in its session while it lives, and does not keep it alive")
    func keptContext() async throws {
        let kept = LockedBox<ContentContext?>(nil)
        // The operation instance belongs to its session: keeping the context in it would be a
        // cycle if the context held its session.
        let keeper = ContentOperationMock(name: "keeper") { _, context, _ in kept.mutate { $0 = context } }
        var setup: Setup? = try await Self.setup(extra: [keeper])
        let context = try #require(kept.value)
        // The run is over; the session has a view model: the kept context performs in it.
        #expect(await context.actions.performAction("test:yes"))
        #expect(setup?.factory.performedNames == ["yes"])

        weak let session = setup?.session
        #expect(session != nil)
        setup = nil
        // Nothing but the engine held the session (the kept context reaches it weakly).
        var waits = 0
        while session != nil, waits < 2000 {
            waits += 1
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(session == nil)
        #expect(await context.actions.performAction("test:yes") == false)
    }

    @Test("S154 without a view model nothing is performed or notified")
    func noViewModel() async throws {
        let factory = RecordingActionFactory.standard()
        let failing = ContentOperationMock()
        failing.setError(TestError(code: 1))
        let observer = ActionObservingOperationMock(ContentOperationMock())
        let (_, session, state) = try await EngineFixture.session([observer, failing], actions: [("test", factory)])
        #expect(state.viewModel == nil)
        let outcome = try await session.perform(ActionInvocation(action: "test:yes", componentIdentifier: nil))
        #expect(!outcome.performed)
        #expect(factory.performedContexts.isEmpty)
        #expect(observer.observedActions.isEmpty)
    }

    @Test("S155 an asynchronous action is awaited")
    func asyncAction() async throws {
        let gate = TaskGate()
        let setup = try await Self.setup(gate: gate)
        let perform = Task { try await setup.session.perform(ActionInvocation(action: "test:slow", componentIdentifier: nil)) }
        await gate.arrivals(1)
        #expect(setup.observer.observedActions.isEmpty)
        gate.release()
        #expect(try await perform.value.performed)
        #expect(setup.observer.observedActions.count == 1)
    }

    // DESIGN: the chained action reports trigger chained (S157 copied the original trigger).
}

/// A handler that records every context it is asked about and vetoes a fixed set.
final class RecordingHandler: ActionHandler {
    private let vetoed: Set<ComponentIdentifier>
    private let asked = Locked<[ActionContext]>([])

    init(vetoing vetoed: Set<ComponentIdentifier>) {
        self.vetoed = vetoed
    }

    func shouldVeto(_ context: ActionContext) async -> Bool {
        asked.withLock { $0.append(context) }
        return vetoed.contains(context.actionIdentifier)
    }

    var contexts: [ActionContext] { asked.withLock { $0 } }
}
