import HubPrimitives
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
        /// Most bytes the live sessions may hold, as they estimate it
        /// (``ViewSession/retainedBytesEstimate``); past it, sessions are evicted as past
        /// ``maxSessions``. `Int.max` (the default): no byte cap.
        public var maxSessionBytes: Int = .max
        /// Most used (protected) sessions one ``SessionOwner`` may hold; its further sessions
        /// stay evictable (``SessionStore``). `Int.max` (the default): no cap.
        public var protectedSessionsPerOwner: Int = .max
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
        /// Called when a session's state changes re-ran its chain in a loop and were paused
        /// (``StateRerunGuard``; for a warning naming the feature and operation).
        public var stateLoopObserver: (@Sendable (StateRerunLoop) -> Void)?
        /// The keys session tokens are signed with (default: one random key, so tokens last as
        /// long as the engine; a server configures shared, lasting keys).
        public var sessionKeys: SessionKeys
        /// How long a token is accepted after it was issued (default 7 days).
        public var tokenMaxAge: Duration
        /// Chains a config reload re-runs at once at most (sessions followed over SSE; the rest
        /// re-run on their next use): keep it near the upstream's per-host connection cap, so a
        /// reload never opens more upstream connections than that.
        public var maxConcurrentReruns: Int
        /// The wall clock tokens are stamped and checked with, in seconds since the Unix epoch
        /// (tests inject their own).
        public var wallClock: @Sendable () -> Int64
        /// Where operations' and actions' state and revoked tokens live (default: this
        /// process's memory; the server configures SQLite or PostgreSQL).
        public var stateStore: any StateStore
        /// Bounds and read-failure policy of ``StateAccess``.
        public var stateSettings: StateSettings
        /// The monotonic clock a view's age is measured with (the `maxAge` reload policy; tests
        /// inject their own).
        public var viewClock: @Sendable () -> ContinuousClock.Instant

        public init(
            operationDeadline: Duration = .seconds(2), componentDefaults: ComponentDefaults = .standard,
            maxSessions: Int = 100_000, sessionIdleTimeout: Duration = .seconds(1800), memoEntries: Int = 1024,
            memoBytes: Int = 64 << 20, maxPages: Int = 100, chainObserver: (@Sendable (ChainReport) -> Void)? = nil,
            sessionKeys: SessionKeys = .ephemeral(), tokenMaxAge: Duration = EngineDefaults.tokenMaxAge,
            wallClock: @escaping @Sendable () -> Int64 = EngineDefaults.systemWallClock, maxConcurrentReruns: Int = 32,
            stateStore: any StateStore = MemoryStateStore(), stateSettings: StateSettings = StateSettings(),
            viewClock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
        ) {
            self.stateStore = stateStore
            self.stateSettings = stateSettings
            self.viewClock = viewClock
            self.maxConcurrentReruns = maxConcurrentReruns
            self.sessionKeys = sessionKeys
            self.tokenMaxAge = tokenMaxAge
            self.wallClock = wallClock
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
    /// Revoked session identifiers (``revoke(_:)``), each until its token would have expired.
    let revoked = RevokedTokens()
    /// Whether the store's revocations are loaded, and revocations it could not record yet.
    let revocationOutbox: RevocationOutbox
    /// The memo's recent answers to opens, by client request (``openView(for:)``).
    let recentOpenings = RecentOpenings()
    /// Token rejections and reload re-runs, for metrics.
    public let counters = EngineCounters()
    /// ``Configuration/tokenMaxAge`` in whole seconds.
    let tokenMaxAgeSeconds: Int64

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
        self.tokenMaxAgeSeconds = max(1, Int64(configuration.tokenMaxAge.inSeconds))
        // A shared store (one with a change feed: other replicas revoke too) must be read before
        // a token this process does not hold can be trusted; a local one holds only this
        // process's own revocations (loaded at start).
        self.revocationOutbox = RevocationOutbox(loaded: configuration.stateStore.status.changeFeedConnected == nil)
        let definitions = EngineDefinitions(
            EngineDefinitions.Current(
                features: features, actions: actions, operationDeadline: configuration.operationDeadline,
                componentDefaults: configuration.componentDefaults))
        self.definitions = definitions
        let sessions = SessionStore(
            capacity: configuration.maxSessions, maxBytes: configuration.maxSessionBytes,
            idleTimeout: configuration.sessionIdleTimeout, protectedPerOwner: configuration.protectedSessionsPerOwner)
        self.sessions = sessions
        self.environment = SessionEnvironment(
            definitions: definitions, maxPages: configuration.maxPages, activity: activity,
            memo: configuration.memoEntries > 0 ? ChainMemo(capacity: configuration.memoEntries, budgetBytes: configuration.memoBytes) : nil,
            chainObserver: configuration.chainObserver,
            // Weak: the store holds the sessions, which hold this environment.
            counters: counters, viewClock: configuration.viewClock,
            withdrawViewless: { [weak sessions] id in sessions?.withdraw(id) },
            replaceSettled: { [weak sessions] session, settled in sessions?.replaceSettled(of: session, with: settled) },
            resized: { [weak sessions] session, bytes in sessions?.resize(session, to: bytes) },
            stateStore: configuration.stateStore,
            stateSettings: {
                var settings = configuration.stateSettings
                settings.sessionValueTTL = settings.sessionValueTTL ?? configuration.tokenMaxAge
                return settings
            }(),
            wallClock: configuration.wallClock, stateLoopObserver: configuration.stateLoopObserver)
        configuration.stateStore.observe { [weak self] event in self?.stateEvent(event) }
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
        for request: ViewRequest, initialViewModel: ViewModel? = nil, lazy: Bool = false,
        admission: () -> SessionAdmission = { .admit }
    ) async throws(EngineError) -> (session: ViewSession, state: ViewState) {
        let started = try await start(
            request, initialViewModel: initialViewModel, storage: lazy ? .lazy : .store, id: nil, needsSession: true,
            admission: admission)
        return (started.session!, started.state)  // needsSession: always made
    }

    /// Runs the chain a new session for `request.viewURI` would run (chain memo included) and
    /// returns its result without keeping any session: for callers that must not create server
    /// state (`HEAD /view?uri=`) or want a one-off render. Throws like ``openSession(for:initialViewModel:lazy:)``.
    /// The session identifier the operations see was never in the store.
    ///
    /// `admission` is asked only when the chain runs (not for a memo hit): a run costs like a
    /// new session, so a caller's per-client budget counts it.
    public nonisolated(nonsending) func loadView(
        for request: ViewRequest, initialViewModel: ViewModel? = nil, admission: () -> SessionAdmission = { .admit }
    ) async throws(EngineError) -> ViewState {
        try await start(
            request, initialViewModel: initialViewModel, storage: .none, id: nil, needsSession: false, admission: admission
        ).state
    }

    /// Where a new session goes.
    enum Storage {
        /// Stored before its first load (unless every slot holds a used session).
        case store
        /// Stored unless its first load is a memo hit.
        case lazy
        /// Stored (in probation, like a new session: a rebuild earns its place by a later use),
        /// unless every slot holds a used session.
        case rebuild
        /// Never stored.
        case none
    }

    /// What ``start(_:initialViewModel:storage:id:needsSession:)`` opened.
    struct Started {
        /// `nil` only for a memo hit that neither stores a session nor was asked for one.
        let session: ViewSession?
        let token: SessionToken
        let state: ViewState
        /// Another request's rebuild of the same session was joined.
        var joined = false
    }

    /// The chain memo's successful entry for a prepared chain, with its shared view model: a
    /// start that needs nothing run. `nil` without a memo, on a miss, or for an entry that failed.
    func memoized(_ prepared: PreparedView) -> (entry: ChainMemo.Entry, viewModel: ViewModel)? {
        guard let memo = environment.memo, let key = prepared.memoKey, let entry = memo.entry(for: key),
            entry.errors.last.map({ $0 == nil }) ?? false, let shared = entry.viewModel
        else { return nil }
        return (entry, shared)
    }

    /// Opens a session for `request` (or only its view, see ``Started/session``). `needsSession`:
    /// the caller uses the session object, so a memo hit that stores nothing still makes one.
    nonisolated(nonsending) func start(
        _ request: ViewRequest, initialViewModel: ViewModel?, storage: Storage, id given: SessionToken?,
        needsSession: Bool, admission: () -> SessionAdmission
    ) async throws(EngineError) -> Started {
        try await start(
            prepare(request, id: given?.id), initialViewModel: initialViewModel, storage: storage, id: given,
            needsSession: needsSession, admission: admission)
    }

    /// ``start(_:initialViewModel:storage:id:needsSession:admission:)`` of a chain already prepared.
    nonisolated(nonsending) func start(
        _ prepared: PreparedView, initialViewModel: ViewModel?, storage: Storage, id given: SessionToken?,
        needsSession: Bool, admission: () -> SessionAdmission
    ) async throws(EngineError) -> Started {
        let (feature, operations, request, id) = (prepared.feature, prepared.operations, prepared.request, prepared.id)
        func token(lazy: Bool) -> SessionToken {
            given ?? issueToken(id: id, viewURI: request.viewURI, lazy: lazy, user: request.user, locale: request.locale)
        }
        /// Asks the caller before a session is stored (or a chain runs for a caller that keeps
        /// none); answers who owns what is stored.
        func admit() throws(EngineError) -> SessionOwner? {
            switch admission() {
            case .refuse(let retryAfter):
                throw EngineError(
                    .sessionRefused, "this client opened too many sessions; try again later", retryAfterSeconds: retryAfter)
            case .admitted(let owner):
                return owner
            }
        }
        // Fast path: a memoized, successful chain. The session starts loaded, sharing the
        // memo's snapshots and view model; no task, no actor hop, nothing runs. (Only successful
        // entries qualify, so a session started here always has a view model and is kept.)
        if initialViewModel == nil, let (entry, shared) = memoized(prepared) {
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
                let owner = try admit()
                let stored = make(lazy: false)
                session = sessions.insertIfAbsent(stored, owner: owner).stored ? stored : make(lazy: true)
            case .rebuild:
                let owner = try admit()
                let rebuilt = make(lazy: true)
                let held = sessions.insertIfAbsent(rebuilt, owner: owner).session
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
            environment: environment, injectedInitialViewModel: initialViewModel, memoKey: prepared.memoKey)
        // Kept: in the store before the run. A drain that ends without a view model takes the
        // session out again (ViewSession.drive), before this caller resumes.
        switch storage {
        case .store, .lazy:
            let owner = try admit()
            let (held, stored) = sessions.insertIfAbsent(session, owner: owner)
            if !stored {
                // Every slot holds a used session: this one is not kept; its lazy token
                // creates it on first use.
                session = ViewSession(
                    token: token(lazy: true), feature: feature, request: request, operations: operations,
                    environment: environment, injectedInitialViewModel: initialViewModel, memoKey: prepared.memoKey)
            } else {
                session = held
            }
        case .rebuild:
            let owner = try admit()
            let held = sessions.insertIfAbsent(session, owner: owner).session
            // Another request rebuilt it first: share its load.
            if held !== session { return Started(session: held, token: held.token, state: await held.settled(), joined: true) }
        case .none:
            // Nothing is kept, but the chain runs (and may fetch upstreams): the caller's
            // budget counts it (`HEAD /view?uri=`, explain) as it counts a session stored.
            _ = try admit()
        }
        let state = await session.loadFirst()
        return Started(session: session, token: session.token, state: state)
    }


    /// Initial content for a view URI without opening a session (S116): the feature's
    /// operations with initial content, asked in order on one builder.
    public func initialViewModel(for request: ViewRequest) throws(EngineError) -> ViewModel {
        guard let feature = features.feature(for: request.viewURI) else {
            throw EngineError(.featureNotFound, "no feature serves '\(request.viewURI)'")
        }
        try feature.checkAccess(request.user)
        return InitialContent.build(
            operations: try feature.makeOperations(for: request), feature: feature.info, request: request,
            defaults: definitions.componentDefaults)
    }
}
