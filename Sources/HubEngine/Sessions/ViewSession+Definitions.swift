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

    /// Adopts a pending definition at the start of a full run: new feature and operations,
    /// no snapshots, no memoized or cached state of the old chain.
    func adoptPendingDefinition() {
        guard let pending = pendingDefinition else { return }
        pendingDefinition = nil
        feature = pending.feature
        operations = pending.operations
        snapshots = Array(repeating: nil, count: operations.count)
        errors = Array(repeating: nil, count: operations.count)
        timings = []
        pageIndex = 0
        memoizedRunKey = nil
        cachedInitialViewModel = nil
        cachedActionPerformer = nil
    }
}
