import HubModel

extension ViewSession {
    /// What a config reload did to a session (``follow(_:)``).
    enum DefinitionOutcome: Sendable {
        /// Its feature did not change.
        case untouched
        /// Its feature changed: the chain re-runs from operation 0 and listeners get the view.
        case rerun
        /// No feature serves its view URI any more: the session ended.
        case ended
    }

    /// Follows new definitions (a config reload). When the feature serving the session's view
    /// URI is the same revision, nothing happens. When it changed (or another feature now
    /// serves the URI), the new definition is queued and adopted by the next full run, from
    /// operation 0; work already under way finishes on the old one, and the drain publishes
    /// the new view to listeners. When no feature serves the URI, the session ends with
    /// ``SessionEndReason/featureRemoved``.
    func follow(_ features: FeatureRegistry) -> DefinitionOutcome {
        guard !isClosed else { return .untouched }
        let current = pendingDefinition?.feature ?? feature
        guard let replacement = features.feature(for: viewURI),
            let operations = try? replacement.makeOperations(for: request)
        else {
            close(reason: .featureRemoved)
            return .ended
        }
        if replacement.identifier == current.identifier && replacement.revision == current.revision { return .untouched }
        pendingDefinition = (replacement, operations)
        enqueue(.main(from: 0))
        startDrivingIfNeeded()
        return .rerun
    }

    /// Checks the session's feature against the definitions installed since it last looked
    /// (a config reload bumps their generation): a changed feature re-runs the chain now
    /// (``follow(_:)``), counted as a lazy re-run, or as an eager one when a reload's bounded
    /// pool asked (`eager`); a removed one ends the session. Costs one comparison when nothing
    /// was installed since. Every entry point that reads or changes the view calls it first.
    @discardableResult
    func catchUp(eager: Bool = false) -> DefinitionOutcome {
        let generation = environment.definitions.generation
        guard generation != validatedGeneration else { return .untouched }
        validatedGeneration = generation
        let outcome = follow(environment.definitions.features)
        if outcome == .rerun { environment.counters.countRerun(eager: eager) }
        return outcome
    }

    /// A reload's eager re-run (a session followed over SSE): catches up and waits until the
    /// re-run has drained, so the reload's pool keeps at most its bound of chains running.
    func rerunForReload() async -> DefinitionOutcome {
        let outcome = catchUp(eager: true)
        if outcome == .rerun { _ = await settled() }
        return outcome
    }

    /// Adopts a pending definition at the start of a full run: new feature and operations,
    /// no snapshots, no memoized or cached state of the old chain.
    func adoptPendingDefinition() {
        guard let pending = pendingDefinition else { return }
        pendingDefinition = nil
        feature = pending.feature
        operations = pending.operations
        snapshots = Snapshots(count: operations.count)
        errors = OperationErrors(count: operations.count)
        timings = []
        pageIndex = 0
        memoizedRunKey = nil
        preparedMemoKey = nil
        cachedInitialViewModel = nil
    }
}
