import Synchronization
import HubModel

/// The engine: features, actions and sessions together. The server (or a test) opens
/// sessions through it; it never sees an HTTP type.
public final class ViewEngine: Sendable {
    /// Engine settings.
    public struct Configuration: Sendable {
        /// Every operation's deadline (DESIGN.md: default 2 s).
        public var operationDeadline: Duration
        /// Defaults of every new component builder (S68, S186).
        public var componentDefaults: ComponentDefaults
        /// Most sessions alive; the least recently used is evicted past it.
        public var maxSessions: Int
        /// Sessions unused for this long expire.
        public var sessionIdleTimeout: Duration
        /// Memoized chain results kept (0 disables memoization).
        public var memoEntries: Int
        /// Bytes the chain memo may hold (estimated from its views' JSON size).
        public var memoBytes: Int
        /// Pages a session may load (``ViewSession/loadNextPage()`` past it is a no-op), so one
        /// client cannot grow a session without bound.
        public var maxPages: Int
        /// Called after every drained queue of every session (for metrics and logs).
        public var chainObserver: (@Sendable (ChainReport) -> Void)?

        public init(
            operationDeadline: Duration = .seconds(2), componentDefaults: ComponentDefaults = .standard,
            maxSessions: Int = 100_000, sessionIdleTimeout: Duration = .seconds(1800), memoEntries: Int = 1024,
            memoBytes: Int = 64 << 20, maxPages: Int = 100, chainObserver: (@Sendable (ChainReport) -> Void)? = nil
        ) {
            self.maxPages = maxPages
            self.memoBytes = memoBytes
            self.chainObserver = chainObserver
            self.operationDeadline = operationDeadline
            self.componentDefaults = componentDefaults
            self.maxSessions = maxSessions
            self.sessionIdleTimeout = sessionIdleTimeout
            self.memoEntries = memoEntries
        }
    }

    public let features: FeatureRegistry
    public let actions: ActionRegistry
    public let sessions: SessionStore
    public let configuration: Configuration
    private let environment: SessionEnvironment
    private let activity = ActivityCounter()

    /// The chain memo's entries and charged bytes (zero when memoization is off).
    public var memoUsage: (entries: Int, bytes: Int) { environment.memo?.usage ?? (0, 0) }

    /// Chain runs under way now (actions, reloads, pages, first loads), in every session.
    public var runningChains: Int { activity.value.load(ordering: .relaxed) }

    /// Waits until no chain runs (or `timeout` passes); `true` when idle. A drain calls it after
    /// the HTTP server has stopped, so that work already started (an action's chain, a
    /// rescheduled remote operation) finishes before the upstream client shuts down.
    public func waitUntilIdle(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while runningChains > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    public init(features: FeatureRegistry, actions: ActionRegistry, configuration: Configuration = Configuration()) {
        self.features = features
        self.actions = actions
        self.configuration = configuration
        let sessions = SessionStore(capacity: configuration.maxSessions, idleTimeout: configuration.sessionIdleTimeout)
        self.sessions = sessions
        self.environment = SessionEnvironment(
            actions: actions, actionHandler: features.defaultActionHandler,
            operationDeadline: configuration.operationDeadline, componentDefaults: configuration.componentDefaults,
            maxPages: configuration.maxPages, activity: activity,
            memo: configuration.memoEntries > 0 ? ChainMemo(capacity: configuration.memoEntries, budgetBytes: configuration.memoBytes) : nil,
            chainObserver: configuration.chainObserver,
            // Weak: the store holds the sessions, which hold this environment.
            withdrawViewless: { [weak sessions] id in sessions?.withdraw(id) })
    }

    /// Opens a session for `request.viewURI`, runs its chain and returns it with the result.
    /// Throws `featureNotFound` (no feature matches) or `noOperations` (S85).
    ///
    /// The session is in the store while its first load runs (the identifier the chain's
    /// operations see names a live session). When that load produces no view model (the last
    /// operation failed, S92), the session is not kept: it leaves the store before this returns
    /// (counted in ``SessionStore/Statistics/failed``), so it occupies no slot and its identifier
    /// names nothing: do not give it to a client. The returned session still works for the
    /// caller holding it (outside the store). So the session is kept exactly when
    /// `state.viewModel` is not `nil`.
    ///
    /// `initialViewModel` injects the session's initial content, e.g. the `target.view` of the
    /// component the client selected to get here; operations are then not asked for theirs (S117).
    public func openSession(
        for request: ViewRequest, initialViewModel: ViewModel? = nil
    ) async throws(EngineError) -> (session: ViewSession, state: ViewState) {
        try await start(request, initialViewModel: initialViewModel, keep: true)
    }

    /// Runs the chain a new session for `request.viewURI` would run (chain memo included) and
    /// returns its result without keeping any session: for callers that must not create server
    /// state (`HEAD /view?uri=`) or want a one-off render. Throws like ``openSession(for:initialViewModel:)``.
    /// The session identifier the operations see was never in the store.
    public func loadView(
        for request: ViewRequest, initialViewModel: ViewModel? = nil
    ) async throws(EngineError) -> ViewState {
        try await start(request, initialViewModel: initialViewModel, keep: false).state
    }

    private func start(
        _ request: ViewRequest, initialViewModel: ViewModel?, keep: Bool
    ) async throws(EngineError) -> (session: ViewSession, state: ViewState) {
        guard let feature = features.feature(for: request.viewURI) else {
            throw EngineError(.featureNotFound, "no feature serves '\(request.viewURI)'")
        }
        let operations = try feature.makeOperations(for: request)
        let id = SessionIdentifier.make()
        // Fast path: a memoized, successful chain. The session starts loaded, sharing the
        // memo's snapshots and view model; no task, no actor hop, nothing runs. (Only successful
        // entries qualify, so a session started here always has a view model and is kept.)
        if initialViewModel == nil, let memo = environment.memo,
            let key = ChainMemo.key(
                feature: feature, operations: operations, request: request, connectivity: request.connectivity,
                sessionID: id),
            let entry = memo.entry(for: key), entry.errors.last.map({ $0 == nil }) ?? false,
            let shared = memo.viewModel(for: key)
        {
            let session = ViewSession(
                id: id, feature: feature, request: request, operations: operations, environment: environment,
                memoized: ViewSession.MemoizedStart(entry: entry, viewModel: shared, key: key))
            if keep { sessions.insert(session) }
            environment.chainObserver?(ChainReport(featureIdentifier: feature.identifier, timings: entry.timings, failure: nil))
            return (session, ViewState(viewModel: shared, version: 1, failure: nil, timings: entry.timings))
        }
        let session = ViewSession(
            id: id, feature: feature, request: request, operations: operations,
            environment: environment, injectedInitialViewModel: initialViewModel)
        // Kept: in the store before the run. A drain that ends without a view model takes the
        // session out again (ViewSession.drive), before this caller resumes.
        if keep { sessions.insert(session) }
        let state = await session.loadFirst()
        return (session, state)
    }

    /// The live session with this identifier, or `nil` when unknown or expired.
    public func session(_ id: String) -> ViewSession? {
        sessions.session(id)
    }

    /// Ends a session; returns whether it existed.
    @discardableResult
    public func endSession(_ id: String) -> Bool {
        sessions.remove(id)
    }

    /// Initial content for a view URI without opening a session (S116): the feature's
    /// operations with initial content, asked in order on one builder.
    public func initialViewModel(for request: ViewRequest) throws(EngineError) -> ViewModel {
        guard let feature = features.feature(for: request.viewURI) else {
            throw EngineError(.featureNotFound, "no feature serves '\(request.viewURI)'")
        }
        return InitialContent.build(
            operations: try feature.makeOperations(for: request), feature: feature.info, request: request,
            defaults: configuration.componentDefaults)
    }
}
