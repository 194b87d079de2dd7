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

    /// The features served now (a config reload, ``install(_:)``, replaces them).
    public var features: FeatureRegistry { definitions.features }
    /// The actions performed now (a config reload, ``install(_:)``, replaces them).
    public var actions: ActionRegistry { definitions.actions }
    public let sessions: SessionStore
    /// The settings the engine started with (a reload may replace the operation deadline and
    /// component defaults: see ``install(_:)``).
    public let configuration: Configuration
    let definitions: EngineDefinitions
    let environment: SessionEnvironment
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
        self.configuration = configuration
        let definitions = EngineDefinitions(
            EngineDefinitions.Current(
                features: features, actions: actions, operationDeadline: configuration.operationDeadline,
                componentDefaults: configuration.componentDefaults))
        self.definitions = definitions
        let sessions = SessionStore(capacity: configuration.maxSessions, idleTimeout: configuration.sessionIdleTimeout)
        self.sessions = sessions
        self.environment = SessionEnvironment(
            definitions: definitions, maxPages: configuration.maxPages, activity: activity,
            memo: configuration.memoEntries > 0 ? ChainMemo(capacity: configuration.memoEntries, budgetBytes: configuration.memoBytes) : nil,
            chainObserver: configuration.chainObserver,
            // Weak: the store holds the sessions, which hold this environment.
            withdrawViewless: { [weak sessions] id in sessions?.withdraw(id) },
            replaceSettled: { [weak sessions] session, settled in sessions?.replaceSettled(of: session, with: settled) })
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
    /// `lazy`: a view answered from the chain memo is not stored at all; the session's token
    /// (``ViewSession/token``) creates it on first use (``resolve(_:request:)``), so a one-shot
    /// view costs no session. A session is likewise not stored when every slot holds a used
    /// session; its token is then lazy too.
    ///
    /// `initialViewModel` injects the session's initial content, e.g. the `target.view` of the
    /// component the client selected to get here; operations are then not asked for theirs (S117).
    public nonisolated(nonsending) func openSession(
        for request: ViewRequest, initialViewModel: ViewModel? = nil, lazy: Bool = false
    ) async throws(EngineError) -> (session: ViewSession, state: ViewState) {
        let started = try await start(
            request, initialViewModel: initialViewModel, storage: lazy ? .lazy : .store, id: nil, needsSession: true)
        return (started.session!, started.state)  // needsSession: always made
    }

    /// Opens a view for a client that gets only its token (`GET /view?uri=`): as
    /// ``openSession(for:initialViewModel:lazy:)`` with `lazy`, but a view answered from the
    /// chain memo makes no session object at all (nothing is stored; the token creates the
    /// session on first use). Other chains run in a stored session, as a new session's do.
    public nonisolated(nonsending) func openView(for request: ViewRequest) async throws(EngineError) -> (token: SessionToken, state: ViewState) {
        let started = try await start(request, initialViewModel: nil, storage: .lazy, id: nil, needsSession: false)
        return (started.token, started.state)
    }

    /// Runs the chain a new session for `request.viewURI` would run (chain memo included) and
    /// returns its result without keeping any session: for callers that must not create server
    /// state (`HEAD /view?uri=`) or want a one-off render. Throws like ``openSession(for:initialViewModel:lazy:)``.
    /// The session identifier the operations see was never in the store.
    public nonisolated(nonsending) func loadView(
        for request: ViewRequest, initialViewModel: ViewModel? = nil
    ) async throws(EngineError) -> ViewState {
        try await start(request, initialViewModel: initialViewModel, storage: .none, id: nil, needsSession: false).state
    }

    /// A session named by a token, and how it was found.
    public enum ResolvedSession: Sendable {
        /// This process holds it.
        case held(ViewSession)
        /// Created from the token (same identifier, chain run for its URI): its first load's
        /// result. `reason` is `nil` for a lazy token's first use (not a rebuild).
        case rebuilt(ViewSession, ViewState, reason: SessionStore.RebuildReason?)
    }

    /// The session `token` names: the held one, or one rebuilt from the token when this process
    /// does not hold it (evicted, expired, restarted, another replica): the same identifier, the
    /// chain run for the token's URI with `request(uri)` (the current request's headers). `nil`
    /// when the token cannot rebuild (no URI in it) or its session was deleted here. Throws like
    /// ``openSession(for:initialViewModel:lazy:)`` for the token's URI. A rebuilt session is
    /// stored as used (protected from one-shot views); when its load fails it is not kept.
    public nonisolated(nonsending) func resolve(
        _ token: SessionToken, request: (String) -> ViewRequest
    ) async throws(EngineError) -> ResolvedSession? {
        if let held = sessions.session(token.id) { return .held(held) }
        guard let viewURI = token.viewURI else { return nil }
        let removal = sessions.removalReason(token.id)
        if removal == .deleted { return nil }
        let started = try await start(request(viewURI), initialViewModel: nil, storage: .rebuild, id: token, needsSession: true)
        let (session, state, joined) = (started.session!, started.state, started.joined)  // needsSession: always made
        guard state.viewModel != nil else { return .rebuilt(session, state, reason: nil) }
        let reason: SessionStore.RebuildReason?
        switch removal {
        case .evicted: reason = .evicted
        case .expired: reason = .expired
        case .deleted, nil: reason = token.lazy ? nil : .unknown
        }
        // Counted once: a request that joined another's rebuild of the same session does not count it again.
        if let reason, !joined { sessions.recordRebuild(token.id, reason: reason) }
        return .rebuilt(session, state, reason: reason)
    }

    /// Where a new session goes.
    private enum Storage {
        /// Stored before its first load (unless every slot holds a used session).
        case store
        /// Stored unless its first load is a memo hit.
        case lazy
        /// Stored as used (a token's session coming back).
        case rebuild
        /// Never stored.
        case none
    }

    /// What ``start(_:initialViewModel:storage:id:needsSession:)`` opened.
    private struct Started {
        /// `nil` only for a memo hit that neither stores a session nor was asked for one.
        let session: ViewSession?
        let token: SessionToken
        let state: ViewState
        /// Another request's rebuild of the same session was joined.
        var joined = false
    }

    /// The chain memo's successful entry for this chain, with its shared view model: a start
    /// that needs nothing run. `nil` without a memo, on a miss, or for an entry that failed.
    private func memoized(
        feature: Feature, operations: [any ContentOperation], request: ViewRequest, id: String
    ) -> (entry: ChainMemo.Entry, viewModel: ViewModel)? {
        guard let memo = environment.memo,
            let key = ChainMemo.key(
                feature: feature, operations: operations, request: request, connectivity: request.connectivity, sessionID: id),
            let entry = memo.entry(for: key), entry.errors.last.map({ $0 == nil }) ?? false,
            let shared = entry.viewModel
        else { return nil }
        return (entry, shared)
    }

    /// ``openView(for:)`` when the chain memo answers it: the lazy token and the memoized view,
    /// nothing stored and nothing run, without suspending; `nil` when the chain must run (then
    /// ``openView(for:)`` answers, making the operations again). Throws as ``openView(for:)``
    /// does for a URI no feature serves.
    public func openViewImmediately(for request: ViewRequest) throws(EngineError) -> (token: SessionToken, state: ViewState)? {
        guard let feature = features.feature(for: request.viewURI) else {
            throw EngineError(.featureNotFound, "no feature serves '\(request.viewURI)'")
        }
        let operations = try feature.makeOperations(for: request)
        let id = SessionIdentifier.make()
        guard let (entry, shared) = memoized(feature: feature, operations: operations, request: request, id: id) else { return nil }
        environment.chainObserver?(ChainReport(featureIdentifier: feature.identifier, timings: entry.timings, failure: nil))
        return (
            SessionToken(id: id, viewURI: request.viewURI, lazy: true),
            ViewState(viewModel: shared, version: 1, failure: nil, timings: entry.timings)
        )
    }

    /// Opens a session for `request` (or only its view, see ``Started/session``). `needsSession`:
    /// the caller uses the session object, so a memo hit that stores nothing still makes one.
    private nonisolated(nonsending) func start(
        _ request: ViewRequest, initialViewModel: ViewModel?, storage: Storage, id given: SessionToken?,
        needsSession: Bool
    ) async throws(EngineError) -> Started {
        guard let feature = features.feature(for: request.viewURI) else {
            throw EngineError(.featureNotFound, "no feature serves '\(request.viewURI)'")
        }
        let operations = try feature.makeOperations(for: request)
        let id = given?.id ?? SessionIdentifier.make()
        func token(lazy: Bool) -> SessionToken {
            given ?? SessionToken(id: id, viewURI: request.viewURI, lazy: lazy)
        }
        // Fast path: a memoized, successful chain. The session starts loaded, sharing the
        // memo's snapshots and view model; no task, no actor hop, nothing runs. (Only successful
        // entries qualify, so a session started here always has a view model and is kept.)
        if initialViewModel == nil, let (entry, shared) = memoized(feature: feature, operations: operations, request: request, id: id) {
            let memoized = ViewSession.MemoizedStart(entry: entry, viewModel: shared, key: entry.key)
            func make(lazy: Bool) -> ViewSession {
                ViewSession(
                    token: token(lazy: lazy), feature: feature, request: request, operations: operations,
                    environment: environment, memoized: memoized)
            }
            let state = ViewState(viewModel: shared, version: 1, failure: nil, timings: entry.timings)
            var session: ViewSession?
            switch storage {
            case .store:
                // Not stored when every slot holds a used session: then its token is lazy.
                let stored = make(lazy: false)
                session = sessions.insertIfAbsent(stored).stored ? stored : make(lazy: true)
            case .rebuild:
                let rebuilt = make(lazy: true)
                let held = sessions.insertIfAbsent(rebuilt, protected: true).session
                // Another request rebuilt it first: share its state.
                if held !== rebuilt { return Started(session: held, token: held.token, state: await held.settled(), joined: true) }
                session = rebuilt
            case .lazy, .none:
                // Nothing stored: the token is enough (a session object only for a caller that uses one).
                if needsSession { session = make(lazy: true) }
            }
            environment.chainObserver?(ChainReport(featureIdentifier: feature.identifier, timings: entry.timings, failure: nil))
            return Started(session: session, token: session?.token ?? token(lazy: true), state: state)
        }
        var session = ViewSession(
            token: token(lazy: false), feature: feature, request: request, operations: operations,
            environment: environment, injectedInitialViewModel: initialViewModel)
        // Kept: in the store before the run. A drain that ends without a view model takes the
        // session out again (ViewSession.drive), before this caller resumes.
        switch storage {
        case .store, .lazy:
            let (held, stored) = sessions.insertIfAbsent(session, protected: false)
            if !stored {
                // Every slot holds a used session: this one is not kept; its lazy token
                // creates it on first use.
                session = ViewSession(
                    token: token(lazy: true), feature: feature, request: request, operations: operations,
                    environment: environment, injectedInitialViewModel: initialViewModel)
            } else {
                session = held
            }
        case .rebuild:
            let held = sessions.insertIfAbsent(session, protected: true).session
            // Another request rebuilt it first: share its load.
            if held !== session { return Started(session: held, token: held.token, state: await held.settled(), joined: true) }
        case .none:
            break
        }
        let state = await session.loadFirst()
        return Started(session: session, token: session.token, state: state)
    }


    /// The live session with this identifier, or `nil` when unknown or expired.
    public func session(_ id: String) -> ViewSession? {
        sessions.session(id)
    }

    /// Loads the held session `id` (``ViewSession/load(_:)``) for the request `request(uri)`
    /// makes for its view URI; `nil` when this process does not hold it. A load its reload
    /// policy answers without a run is served from the session's published ``SettledView``
    /// without a hop onto the session's actor (the same answer, and the request is still
    /// recorded as the session's latest).
    public nonisolated(nonsending) func loadHeld(
        _ id: String, request: (String) -> ViewRequest
    ) async -> (session: ViewSession, state: ViewState)? {
        guard let (session, settled) = sessions.lookup(id) else { return nil }
        let viewRequest = request(session.viewURI)
        if let settled, let state = settled.answer(viewRequest) { return (session, state) }
        return (session, await session.load(viewRequest))
    }

    /// ``loadHeld(_:request:)`` when it needs no run and no hop onto the session's actor: the
    /// held session `id` and the state its published ``SettledView`` answers for the request
    /// `request(uri)` makes; `nil` when this process does not hold it or the session must
    /// decide (then nothing was recorded, and ``loadHeld(_:request:)`` gives the answer).
    public func loadHeldImmediately(
        _ id: String, request: (String) -> ViewRequest
    ) -> (session: ViewSession, state: ViewState)? {
        guard let (session, settled) = sessions.lookup(id), let settled,
            let state = settled.answer(request(session.viewURI))
        else { return nil }
        return (session, state)
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
            defaults: definitions.componentDefaults)
    }
}
