import HubEngine
import HubModel
import Testing

/// Chained actions (S156, S157), unknown targets, errors and the built-in actions.
extension ActionTests {
    @Test("S156 S157 a chained action runs through the same pipeline with trigger chained")
    func chainedAction() async throws {
        let setup = try await Self.setup()
        let outcome = try await setup.session.perform(
            ActionInvocation(action: "test:chain", componentIdentifier: "row", customData: ["orig": 1]))
        #expect(outcome.performed)
        #expect(setup.factory.performedNames == ["chain", "target"])
        let chained = try #require(setup.factory.performedContexts.last)
        #expect(chained.trigger == .chained)
        #expect(chained.actionIdentifier == "test:target")
        #expect(chained.customData == ["k": "v"])
        #expect(chained.componentModel?.identifier == "row")
        let original = try #require(setup.factory.performedContexts.first)
        #expect(chained.viewModel == original.viewModel)
        #expect(chained.viewURI == original.viewURI)
        #expect(chained.feature == original.feature)
        #expect(setup.observer.observedActions.map(\.context.trigger) == [.component, .chained])
    }

    @Test("S156 an action that chains to itself stops at the maximum chain depth")
    func selfChainingActionStops() async throws {
        let setup = try await Self.setup()
        let outcome = try await setup.session.perform(ActionInvocation(action: "test:loop", componentIdentifier: nil))
        #expect(outcome.performed)
        // The original plus eight chained performs, then the chain is cut.
        #expect(setup.factory.performedNames == Array(repeating: "loop", count: 9))
    }

    @Test("S156 the handler can veto a chained action")
    func chainedActionVetoed() async throws {
        let setup = try await Self.setup(defaultHandler: VetoListActionHandler(vetoed: ["test:target"]))
        let outcome = try await setup.session.perform(ActionInvocation(action: "test:chain", componentIdentifier: nil))
        #expect(outcome.performed)  // the original action was performed
        #expect(setup.factory.performedNames == ["chain"])
        #expect(setup.observer.observedActions.map(\.vetoed) == [false, true])
        #expect(setup.observer.observedActions.last?.context.trigger == .chained)
    }

    // MARK: - Errors

    @Test("An action on a component not in the current view model throws componentNotFound")
    func componentNotFound() async throws {
        let setup = try await Self.setup()
        for invocation in [
            ActionInvocation(action: "test:yes", componentIdentifier: "missing"),
            ActionInvocation(action: nil, componentIdentifier: "missing"),
        ] {
            do {
                _ = try await setup.session.perform(invocation)
                Issue.record("expected componentNotFound")
            } catch let error as EngineError {
                #expect(error.code == .componentNotFound)
            }
        }
        #expect(setup.factory.performedContexts.isEmpty)
        #expect(setup.observer.observedActions.isEmpty)
    }

    @Test("An unknown action namespace or name throws actionNotFound")
    func actionNotFound() async throws {
        let setup = try await Self.setup()
        for identifier: ComponentIdentifier in ["nope:yes", "test:unknown", "hub:unknown"] {
            do {
                _ = try await setup.session.perform(ActionInvocation(action: identifier, componentIdentifier: nil))
                Issue.record("expected actionNotFound for \(identifier)")
            } catch let error as EngineError {
                #expect(error.code == .actionNotFound)
            }
        }
        #expect(setup.observer.observedActions.isEmpty)
    }

    @Test("An action's error is rethrown after the observers saw it")
    func actionError() async throws {
        let setup = try await Self.setup()
        await #expect(throws: TestError(code: 42)) {
            try await setup.session.perform(ActionInvocation(action: "test:fail", componentIdentifier: nil))
        }
        #expect(setup.observer.observedActions.map(\.performed) == [false])
        #expect(setup.observer.observedActions.map(\.vetoed) == [false])
    }

    // MARK: - Built-in actions

    @Test("hub:reload re-runs the whole chain, ignoring the reload policy")
    func builtInReload() async throws {
        let setup = try await Self.setup(reloadPolicy: .never)
        let outcome = try await setup.session.perform(ActionInvocation(action: "hub:reload", componentIdentifier: nil))
        #expect(outcome.performed)
        #expect(setup.content.performCount == 2)
        #expect(setup.last.performCount == 2)
        #expect(outcome.state.viewModel?.component(withIdentifier: "last")?.title == "last #2")
    }

    @Test("hub:next-page loads the next page")
    func builtInNextPage() async throws {
        let paginated = PaginatedOperationMock.appending("P")
        let (_, session, _) = try await EngineFixture.session([paginated])
        let outcome = try await session.perform(ActionInvocation(action: "hub:next-page", componentIdentifier: nil))
        #expect(outcome.performed)
        #expect(outcome.state.bodyIdentifiers == ["P-0", "P-1"])
        #expect(paginated.pageIndexes == [1])
    }
}
