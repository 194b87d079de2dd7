import HubModel

/// An action as a client asks for it (`POST /action`).
public struct ActionInvocation: Sendable {
    /// A custom action `namespace:name`; `nil` for a selection of ``componentIdentifier``.
    public let action: ComponentIdentifier?
    /// The component the action concerns, by identifier.
    public let componentIdentifier: String?
    public let customData: JSONObject?

    public init(action: ComponentIdentifier?, componentIdentifier: String?, customData: JSONObject? = nil) {
        self.action = action
        self.componentIdentifier = componentIdentifier
        self.customData = customData
    }
}

extension ViewSession {
    /// Performs an action and waits for the view after the chain settles.
    ///
    /// - A named action runs through the pipeline with trigger `component`.
    /// - Only a component: a selection; its `target.actions` are tried in order until one is
    ///   performed (S146). None performed answers `performed: false`.
    /// - The feature's handler (else the default) may veto each action (S145); observers see
    ///   every action, performed or vetoed (S128), and may ask to be rescheduled.
    ///
    /// Throws ``EngineError`` `componentNotFound` for a component not in the current view
    /// model, `actionNotFound` for an unknown namespace or name, and rethrows an action's error.
    public func perform(_ invocation: ActionInvocation, request: ViewRequest? = nil) async throws -> ActionOutcome {
        catchUp()
        // An action may change the view: loads go to the session until it has settled again.
        withdrawSettled()
        if let request { self.request = pinned(request) }
        // A first load under way (a session opened or rebuilt by a concurrent request, such as
        // an event stream reconnecting on another replica at the same moment): the action
        // applies to its result instead of finding nothing loaded.
        if currentViewModel == nil, isLoading { _ = await settled() }
        guard let viewModel = currentViewModel else {
            // S154: nothing loaded, nothing performed or notified.
            return ActionOutcome(performed: false, state: state)
        }
        var component: ComponentModel?
        if let identifier = invocation.componentIdentifier {
            guard let found = viewModel.component(withIdentifier: identifier) else {
                throw EngineError(.componentNotFound, "no component '\(identifier)' in the session's view")
            }
            component = found
        }
        var performed = false
        var work: [Work] = []
        // One action of a session at a time, in arrival order: its veto, perform and observers
        // finish before the next one starts (the chain re-runs they ask for are queued as usual).
        // Concurrent actions of one view then never race each other's state writes.
        await takeActionTurn()
        do {
            performed = try await performInvocation(invocation, viewModel: viewModel, component: component, work: &work)
        } catch {
            releaseActionTurn()
            // Observers saw the failed action and may have asked to be rescheduled (S128): honour it.
            for item in work { enqueue(item) }
            startDrivingIfNeeded()
            throw error
        }
        releaseActionTurn()
        // Content the view was built from was invalidated: the answer shows the chain run again.
        if takeContentInvalidation() { work.append(.main(from: 0)) }
        guard !work.isEmpty else {
            let state = await settled()
            forgetRequestTrace()
            return ActionOutcome(performed: performed, state: state)
        }
        return ActionOutcome(performed: performed, state: await schedule(work))
    }

    /// Waits until no other client action of this session is being performed, then takes the turn.
    private func takeActionTurn() async {
        guard actionTurnTaken else {
            actionTurnTaken = true
            return
        }
        await withCheckedContinuation { actionTurnWaiters.append($0) }
    }

    /// Hands the turn to the next waiting action (it stays taken), or frees it.
    private func releaseActionTurn() {
        if actionTurnWaiters.isEmpty {
            actionTurnTaken = false
        } else {
            actionTurnWaiters.removeFirst().resume()
        }
    }

    /// The named action, or the selection's actions in order (S146); returns whether one was performed.
    private func performInvocation(
        _ invocation: ActionInvocation, viewModel: ViewModel, component: ComponentModel?, work: inout [Work]
    ) async throws -> Bool {
        var performed = false
        if let identifier = invocation.action {
            guard let action = environment.actions.makeAction(identifier) else {
                throw EngineError(.actionNotFound, "no action '\(identifier)' is registered")
            }
            let context = actionContext(
                trigger: .component, identifier: identifier, customData: invocation.customData,
                viewModel: viewModel, component: component)
            performed = try await runPipeline(action: action, context: context, work: &work)
        } else if let component {
            for identifier in component.target?.actionIdentifiers ?? [] {
                guard let action = environment.actions.makeAction(identifier) else { continue }
                let context = actionContext(
                    trigger: .selection, identifier: identifier, customData: invocation.customData,
                    viewModel: viewModel, component: component)
                if try await runPipeline(action: action, context: context, work: &work) {
                    performed = true
                    break
                }
            }
        }
        return performed
    }

    /// An action performed by a content operation (S129, S152): trigger `contentOperation`,
    /// no component. Its reschedules are queued, not awaited (the chain is running).
    func performActionFromOperation(_ identifier: ComponentIdentifier, customData: JSONObject?) async -> Bool {
        guard let viewModel = currentViewModel, let action = environment.actions.makeAction(identifier) else {
            return false
        }
        let context = actionContext(
            trigger: .contentOperation, identifier: identifier, customData: customData, viewModel: viewModel,
            component: nil)
        var work: [Work] = []
        let performed = (try? await runPipeline(action: action, context: context, work: &work)) ?? false
        for item in work { enqueue(item) }
        startDrivingIfNeeded()
        return performed
    }

    /// One action through the pipeline: veto check, perform, observers, chained action (S145,
    /// S128, S156). Work the action or observers ask for is added to `work`.
    /// Chained actions deeper than this are not performed: an action that chains to itself
    /// must not loop forever.
    static var maximumChainDepth: Int { 8 }

    private func runPipeline(
        action: any Action, context: ActionContext, work: inout [Work], depth: Int = 0
    ) async throws -> Bool {
        let vetoed = await environment.actionHandler(for: feature)?.shouldVeto(context) ?? false
        var result = ActionResult.notPerformed
        var failure: (any Error)?
        if !vetoed {
            do {
                // Its own writes' change reports re-run nothing here: stateWork below schedules them.
                result = try await withOwnStateLog(context.state.log) { try await action.perform(context: context) }
            } catch {
                failure = error
            }
        }
        notifyObservers(ObservedAction(context: context, performed: result.performed, vetoed: vetoed), work: &work)
        // What the action wrote re-runs the operations that read it (even when it then threw).
        if let log = context.state.log, let rerun = stateWork(forWritesIn: log) { work.append(rerun) }
        if let failure { throw failure }
        if result.reloadsView { work.append(.main(from: 0)) }
        if result.loadsNextPage { work.append(.page) }
        if let chained = result.chainedAction, depth < Self.maximumChainDepth,
            let chainedAction = environment.actions.makeAction(chained)
        {
            _ = try await runPipeline(
                action: chainedAction, context: context.chained(to: chained, customData: result.chainedCustomData),
                work: &work, depth: depth + 1)
        }
        return result.performed
    }

    private func notifyObservers(_ observed: ObservedAction, work: inout [Work]) {
        var lowest: Int?
        for (index, operation) in operations.enumerated() {
            guard let observer = operation as? any ActionObservingContentOperation else { continue }
            if observer.actionPerformed(observed), lowest == nil { lowest = index }
        }
        if let lowest { work.append(.main(from: lowest)) }
    }

    private func actionContext(
        trigger: ActionTrigger, identifier: ComponentIdentifier, customData: JSONObject?, viewModel: ViewModel,
        component: ComponentModel?
    ) -> ActionContext {
        ActionContext(
            trigger: trigger, actionIdentifier: identifier, customData: customData, feature: feature.info,
            viewURI: viewURI, viewModel: viewModel, componentModel: component, sessionID: id, request: request,
            state: stateAccess(operationIndex: 0, log: StateTouchLog()))
    }
}

extension SessionEnvironment {
    func actionHandler(for feature: Feature) -> (any ActionHandler)? {
        feature.actionHandler ?? definitions.features.defaultActionHandler
    }
}
