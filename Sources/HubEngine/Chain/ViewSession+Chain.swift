import HubModel
import HubSync

extension ViewSession {
    /// Runs operations `from...` in main mode: op 0 from an empty builder, op i from a copy of
    /// snapshot i-1, each seeing the error of op i-1 (S89, S93, S99). A full run resets the
    /// page index and may be answered from the chain memo.
    func runMain(from start: Int) async {
        if start == 0 { adoptPendingDefinition() }
        memoizedRunKey = nil
        lastSnapshotReleased = false
        if start == 0 {
            pageIndex = 0
            let prepared = preparedMemoKey
            preparedMemoKey = nil
            if let memo = environment.memo, let key = prepared ?? memoKey() {
                if let entry = memo.entry(for: key) {
                    snapshots = entry.snapshots
                    errors = entry.errors
                    timings = entry.timings
                    memoizedRunKey = entry.key
                    usedContent.withLock { $0 = entry.use }
                    return
                } else {
                    let generation = memo.generation
                    await runOperations(from: 0)
                    // A deadline miss is the engine's verdict, not the operations' result: never share it.
                    guard !errors.contains(where: { $0 is OperationTimeoutError }) else { return }
                    // Stale content stands in for a failed source: the next run should try it again.
                    guard !timings.contains(where: { $0.staleAgeSeconds != nil }) else { return }
                    var entry = ChainMemo.Entry(snapshots: snapshots, errors: errors, timings: timings)
                    entry.use = contentUse
                    // Not shared when an invalidation came meanwhile: the run may have used what it named.
                    guard memo.store(entry, for: key, ifGeneration: generation) else { return }
                }
                memoizedRunKey = key
                return
            }
        }
        await runOperations(from: start)
    }

    private func runOperations(from start: Int) async {
        // Every operation of one run sees the connectivity the run started with (S110); a
        // change arriving meanwhile schedules its own full run (S111). Likewise the request: a
        // `load` arriving while an operation awaits replaces `self.request`, but this run's
        // operations keep the one `prepare` saw (a remote prefetch is found by its URL).
        let connectivity = self.connectivity
        let request = self.request
        // The chain settings too: read once (they are behind the engine's definitions lock), and a
        // reload arriving mid-run does not change them for this run.
        let defaults = environment.componentDefaults
        let deadline = environment.operationDeadline
        if timings.count != operations.count {
            timings = operations.map { OperationTiming(name: $0.name, duration: .zero, failed: false) }
        }
        let stateLog = StateTouchLog()
        ownStateLogs.append(stateLog)
        var actions = ActionTarget(self)
        defer {
            ActionTarget.endRun(&actions)
            endOwnStateLog(stateLog)
            recordStateReads(stateLog, operations: start..<operations.count)
            // The first full run of a session that never emitted a view: what it found of the
            // session's own state is what a rebuild reports (a memo hit reads none).
            if start == 0, version == 0, firstRunState == nil {
                firstRunState = stateLog.sessionStateOutcome(sessionID: id)
            }
        }
        if start == 0 {
            for index in operations.indices {
                operations[index].prepare(
                    context: makeContext(
                        operationIndex: index, previousError: nil, page: 0, connectivity: connectivity, request: request,
                        actions: actions))
            }
        }
        var sources: (urls: [String], tags: [String]) = ([], [])
        defer { recordContentUse(sources, replacing: start == 0) }
        for index in start..<operations.count {
            let operation = operations[index]
            let input = index == 0 ? ViewModelBuilder(defaults: defaults)
                : (snapshots[index - 1] ?? ViewModelBuilder(defaults: defaults))
            let context = makeContext(
                operationIndex: index, previousError: index == 0 ? nil : errors[index - 1], page: 0,
                connectivity: connectivity, request: request, stateLog: stateLog, actions: actions)
            let result = await OperationRunner.run(
                name: operation.name, inline: operation.completesSynchronously,
                deadline: deadline, deadlines: environment.deadlines, builder: input
            ) { builder in
                try await operation.perform(builder: &builder, context: context)
            }
            snapshots[index] = result.builder
            errors[index] = result.error
            timings[index] = OperationTiming(
                name: operation.name, duration: result.duration, failed: result.error != nil,
                staleAgeSeconds: result.staleAgeSeconds)
            if let reported = result.sources {
                sources.urls += reported.urls
                sources.tags += reported.tags
            }
        }
    }

    /// Runs the chain in pagination mode (S120..S123): op 0 starts from a copy of the last
    /// snapshot, op i from snapshot i-1; paginated ops append, the others pass their input
    /// and their own stored error through. Returns `false` when it was a no-op (S119), and
    /// past the engine's `maxPages` (a session's growth is bounded).
    func runPage() async -> Bool {
        guard currentViewModel != nil, pageIndex < environment.maxPages, let last = snapshots.last ?? nil,
            operations.contains(where: { $0 is any ContentOperationWithPaginatedContent })
        else { return false }
        pageIndex += 1
        memoizedRunKey = nil
        let page = pageIndex
        let connectivity = self.connectivity
        let deadline = environment.operationDeadline
        let stateLog = StateTouchLog()
        ownStateLogs.append(stateLog)
        var actions = ActionTarget(self)
        defer {
            ActionTarget.endRun(&actions)
            endOwnStateLog(stateLog)
            recordStateReads(stateLog, operations: 0..<0)  // pages add to what the main run read
        }
        for index in operations.indices {
            let input = index == 0 ? last : (snapshots[index - 1] ?? last)
            guard let operation = operations[index] as? any ContentOperationWithPaginatedContent else {
                snapshots[index] = input
                continue
            }
            let context = makeContext(
                operationIndex: index, previousError: errors[index], page: page, connectivity: connectivity,
                stateLog: stateLog, actions: actions)
            let result = await OperationRunner.run(
                name: operation.name, inline: false, deadline: deadline, deadlines: environment.deadlines,
                builder: input
            ) { builder in
                try await operation.appendContent(forPage: page, builder: &builder, context: context)
            }
            if let reported = result.sources { recordContentUse(reported, replacing: false) }
            snapshots[index] = result.builder
            errors[index] = result.error
            timings[index] = OperationTiming(
                name: operation.name, duration: result.duration, failed: result.error != nil,
                staleAgeSeconds: result.staleAgeSeconds)
        }
        return true
    }

    /// Publishes the result of a drained queue: the last operation's error fails the load and
    /// keeps the previous view model (S92, S95); success builds the last snapshot with the
    /// feature title as fallback when there is neither header nor title (S96).
    func emit() {
        let lastIndex = operations.count - 1
        if let error = errors[lastIndex] {
            lastFailure = ViewLoadError(operationIndex: lastIndex, operationName: operations[lastIndex].name, underlying: error)
            return
        }
        lastFailure = nil
        let viewModel: ViewModel
        // The request (its languages: the fallback title) may have changed since the run began.
        if let key = memoizedRunKey, let memo = environment.memo, key == memoKey() {
            // The snapshots are exactly the memo entry's: every session shares one view model.
            if let shared = memo.viewModel(for: key) {
                viewModel = shared
            } else {
                viewModel = buildEmittedViewModel()
                memo.storeViewModel(viewModel, for: key)
            }
        } else {
            // The session's own view: kept as the bytes it serves (what a load sends, without
            // serializing again), its components parsed again only when an action or a patch
            // reads them. Memory per held session follows the view's JSON size.
            viewModel = buildEmittedViewModel().compacted()
        }
        loadedAt = environment.viewClock()
        if let currentViewModel, Self.sameContent(currentViewModel, viewModel) { return }
        currentViewModel = viewModel
        version += 1
        publish()
    }

    /// Whether a new view model shows what the current one does: two compact ones compare their
    /// bytes (the same bytes are the same view; different bytes are taken as a change, which
    /// at worst emits a view equal to the last), others compare content.
    static func sameContent(_ current: ViewModel, _ new: ViewModel) -> Bool {
        if let currentBytes = current.compactBytes, let newBytes = new.compactBytes { return currentBytes == newBytes }
        return current == new
    }

    func buildEmittedViewModel() -> ViewModel {
        guard var builder = snapshots[operations.count - 1] else { return ViewModel() }
        if builder.header == nil && builder.title == nil {
            builder.title = feature.info.title(for: request.contentLanguages)
        }
        return builder.build()
    }

    /// Emits the initial content as a successful load (S111).
    func emitInitialContent() {
        let initial = initialViewModel()
        lastFailure = nil
        if let currentViewModel, currentViewModel == initial { return }
        currentViewModel = initial
        version += 1
        publish()
    }

    /// Initial content: an injected initial view model if the session was opened with one
    /// (S117), else every operation with initial content, in order, on one builder; computed
    /// once per session (S116).
    public func initialViewModel() -> ViewModel {
        if let cachedInitialViewModel { return cachedInitialViewModel }
        let initial = InitialContent.build(
            operations: operations, feature: feature.info, request: request, defaults: environment.componentDefaults)
        cachedInitialViewModel = initial
        return initial
    }

    /// The chain's memo key: every operation's key plus the inputs every operation sees, or
    /// `nil` when some operation is not memoizable.
    func memoKey() -> String? {
        guard environment.memo != nil else { return nil }
        return ChainMemo.key(
            feature: feature, operations: operations, request: request, connectivity: connectivity, sessionID: id)
    }

    /// A context of a run whose actions (S129) go through `actions` (``ActionTarget``: the run's
    /// contexts share one, ended with the run).
    func makeContext(
        operationIndex: Int, previousError: (any Error)?, page: Int, connectivity: Connectivity? = nil,
        request: ViewRequest? = nil, stateLog: StateTouchLog? = nil, actions: ActionTarget
    ) -> ContentContext {
        ContentContext(
            viewURI: viewURI, feature: feature.info, connectivity: connectivity ?? self.connectivity,
            previousError: previousError,
            pageIndex: page, request: request ?? self.request, sessionID: id, operationIndex: operationIndex,
            actions: actions.performer, state: stateAccess(operationIndex: operationIndex, log: stateLog))
    }
}

/// Building initial content (S116).
enum InitialContent {
    static func build(
        operations: [any ContentOperation], feature: FeatureInfo, request: ViewRequest, defaults: ComponentDefaults
    ) -> ViewModel {
        var builder = ViewModelBuilder(defaults: defaults)
        let context = InitialContentContext(viewURI: request.viewURI, feature: feature, request: request)
        for operation in operations {
            (operation as? any ContentOperationWithInitialContent)?.addInitialContent(to: &builder, context: context)
        }
        return builder.build()
    }
}
