extension ViewEngine {
    /// A new token for session `id`, signed with the signing key and stamped now.
    /// `locale`: the request's negotiated locale, which the token carries (a rebuild keeps it).
    func issueToken(id: String, viewURI: String?, lazy: Bool, user: HubUser? = nil, locale: String? = nil) -> SessionToken {
        SessionToken(
            id: id, viewURI: viewURI, lazy: lazy, issuedAt: configuration.wallClock(), keys: configuration.sessionKeys, user: user,
            locale: locale)
    }

    /// The token `text` is when this engine accepts it: its MAC verifies under one of the keys,
    /// it is younger than ``Configuration/tokenMaxAge`` and it was not revoked here. A refusal
    /// is counted (``EngineCounters/rejected(_:)``). Nothing is stored either way.
    /// `user`: the request's verified user; a token a user opened verifies only for that user.
    public func verify(_ text: String, user: HubUser? = nil) -> Result<SessionToken, SessionToken.Rejection> {
        let now = configuration.wallClock()
        switch SessionToken.verify(text, keys: configuration.sessionKeys, now: now, maxAge: tokenMaxAgeSeconds, user: user) {
        case .success(let token):
            guard !revoked.isRevoked(token.id, now: now) else {
                counters.reject(.revoked)
                return .failure(.revoked)
            }
            return .success(token)
        case .failure(let reason):
            counters.reject(reason)
            return .failure(reason)
        }
    }

    /// The session this process holds for exactly the token text `text` (the text it issued, not
    /// expired, not dated ahead of the clock by more than
    /// ``SessionToken/maximumClockSkewSeconds``), with its published view, marked used; `nil`
    /// otherwise (then ``verify(_:)`` says why, or the token rebuilds). No MAC is computed: the
    /// identifier is a 128-bit secret and the text must equal the one the server signed,
    /// compared in constant time (``ConstantTime``), so the answer's timing tells nothing of how
    /// much of a guessed text was right.
    ///
    /// The session must be `user`'s (opened by the same verified user, or anonymously by an
    /// anonymous request); `bearerSuffices`: a request with no user may use a user's session
    /// (`GET /view/events`: the token alone authorises the stream, as EventSource sends no
    /// credentials). `now`: the store's time of the lookup (``SessionStore/lookup(_:now:)``).
    func held(
        _ text: String, user: HubUser? = nil, bearerSuffices: Bool = false, now: ContinuousClock.Instant = .now
    ) -> (session: ViewSession, settled: SettledView?)? {
        guard let id = SessionToken.identifier(of: text), let found = sessions.lookup(id, now: now),
            found.session.token.isEncoded(as: text),
            found.session.user == user || (bearerSuffices && user == nil)
        else { return nil }
        let age = configuration.wallClock() - found.session.token.issuedAt
        guard age < tokenMaxAgeSeconds, age >= -SessionToken.maximumClockSkewSeconds else { return nil }
        return found
    }

    /// The live session with this identifier, or `nil` when unknown or expired (for in-process
    /// callers that hold the identifier; a client's token goes through ``session(for:)``).
    public func session(_ id: String) -> ViewSession? {
        sessions.session(id)
    }

    /// The live session the token text `text` names in this process, or `nil` (unknown,
    /// expired, another token, or a token this engine would refuse).
    public func session(for text: String, user: HubUser? = nil) -> ViewSession? {
        held(text, user: user)?.session
    }

    /// Reads the token text a request names, once: the session held here for exactly that text
    /// (no MAC computed: ``held(_:)``), else the token verified (``verify(_:)``, a refusal
    /// counted). The request's later engine calls (``resolve(_:request:admission:store:)`` with
    /// its ``PresentedToken/token``, ``revoke(_:)``) take the value it answers.
    /// (`GET /view?session=` reads it with ``loadHeld(_:request:)``, which answers a settled view
    /// without making this value.)
    ///
    /// `user`: the request's verified user (a session is found only for the user who opened it);
    /// `bearerSuffices`: see ``held(_:user:bearerSuffices:)``. A held session whose feature's
    /// access rule refuses `user` (their claims changed) carries the refusal (``PresentedToken/refusal``).
    public func presentedToken(_ text: String, user: HubUser? = nil, bearerSuffices: Bool = false) -> PresentedToken {
        if let held = held(text, user: user, bearerSuffices: bearerSuffices) {
            return PresentedToken(text: text, held: held, verification: nil, refusal: accessRefusal(held.session, user: user))
        }
        return PresentedToken(text: text, held: nil, verification: verify(text, user: user))
    }

    /// Why `user` may no longer use a held session of theirs (its feature's access rule now
    /// refuses their claims); `nil` when they may, and for a request with no user (a bound
    /// stream's token alone, ``held(_:user:bearerSuffices:)``).
    func accessRefusal(_ session: ViewSession, user: HubUser?) -> EngineError? {
        guard user != nil, let feature = features.feature(for: session.viewURI) else { return nil }
        return feature.access(for: user).error(feature: feature.identifier)
    }

    /// A load of the session a token names (``loadHeld(_:request:)``, ``heldLoad(_:settled:sameClient:request:)``).
    enum HeldLoad: Sendable {
        /// Held: its published ``SettledView`` answers the request: no run, no hop onto its actor.
        case now(ViewSession, ViewState)
        /// Held: the session decides (its reload policy may run the chain): ``PendingLoad/run()``.
        case later(PendingLoad)
        /// Not held here: the token, read (verified or refused), to rebuild its session with
        /// (``resolve(_:request:admission:store:)``) or to refuse.
        case notHeld(PresentedToken)

        /// The held session and its state for this request, running a pending load; `nil` when
        /// not held.
        func resolved() async -> (session: ViewSession, state: ViewState)? {
            switch self {
            case .now(let session, let state): return (session, state)
            case .later(let pending): return await pending.run()
            case .notHeld: return nil
            }
        }
    }

    /// A held session's load that must go through the session (``ViewSession/load(_:)``), with
    /// the request already made for it.
    struct PendingLoad: Sendable {
        let engine: ViewEngine
        let session: ViewSession
        let request: ViewRequest

        /// The load; `nil` when a reload removed the session's feature (the session ended on
        /// this load, and its token rebuilds nothing: no feature serves the URI).
        func run() async -> (session: ViewSession, state: ViewState)? {
            let state = await session.load(request)
            guard await session.endReason != .featureRemoved else {
                engine.sessions.remove(session.id)
                return nil
            }
            return (session, state)
        }
    }

    /// Reads the token text `text` once and loads the session it names, without suspending
    /// (the session door's ``SessionNeed/view``, ``session(named:user:bearerSuffices:need:sameClient:request:)``,
    /// as the engine's tests read it): `notHeld` with the token read (``presentedToken(_:)``)
    /// when this process does not hold it, else ``heldLoad(_:settled:sameClient:request:)``.
    func loadHeld(
        _ text: String, user: HubUser? = nil, sameClient: (String, ViewRequest) -> Bool = { _, _ in false },
        request: (String) -> ViewRequest
    ) -> HeldLoad {
        guard let (session, settled) = held(text, user: user) else {
            return .notHeld(PresentedToken(text: text, held: nil, verification: verify(text, user: user)))
        }
        if let refusal = accessRefusal(session, user: user) {
            return .notHeld(PresentedToken(text: text, held: nil, verification: nil, refusal: refusal))
        }
        return heldLoad(session, settled: settled, sameClient: sameClient, request: request)
    }

    /// The load of a held session for the request `request(uri)` makes for its view URI:
    /// `now` when its published ``SettledView`` answers (the same answer the session would give,
    /// and the request is still recorded as the session's latest), else `later` with the load to
    /// run. `sameClient`: see ``session(named:user:bearerSuffices:need:sameClient:request:)``.
    func heldLoad(
        _ session: ViewSession, settled: SettledView?, sameClient: (String, ViewRequest) -> Bool,
        request: (String) -> ViewRequest
    ) -> HeldLoad {
        let current = settled.flatMap { $0.generation == definitions.generation ? $0 : nil }
        if let current,
            let state = current.answerBaseline({ sameClient(session.viewURI, $0) }, now: environment.viewClock)
        {
            return ready(session, state, from: current)
        }
        // The session's own locale, whatever this request negotiated (it keeps the one it was opened with).
        let viewRequest = session.pinned(request(session.viewURI))
        if let current, let state = current.answer(viewRequest, now: environment.viewClock()) {
            return ready(session, state, from: current)
        }
        return .later(PendingLoad(engine: self, session: session, request: viewRequest))
    }

    /// `state`, answered by `settled` without a run. Under `reload: always` the memo answered
    /// the re-run: reported as a run answered by it.
    private func ready(_ session: ViewSession, _ state: ViewState, from settled: SettledView) -> HeldLoad {
        if let rerun = settled.rerun {
            environment.chainObserver?(ChainReport(featureIdentifier: rerun.featureIdentifier, timings: state.timings, failure: nil))
        }
        return .now(session, state)
    }

    /// A session named by a token, and how it was found.
    enum ResolvedSession: Sendable {
        /// This process holds it.
        case held(ViewSession)
        /// Created from the token (same identifier, chain run for its URI): its first load's
        /// result. `reason` is `nil` for a lazy token's first use (not counted as a rebuild) and
        /// for a rebuild not stored (`HEAD`). `stateOutcome`: what that first run found of the
        /// session's own state (``RebuiltState``), `nil` when it read none (a memo hit reads
        /// none); the same for a request that joined another's rebuild of the session.
        case rebuilt(ViewSession, ViewState, reason: SessionStore.RebuildReason?, stateOutcome: RebuiltState?)
    }

    /// The session a verified `token` (``verify(_:)``) names: the held one, or one rebuilt from
    /// the token when this process does not hold it (evicted, expired, restarted, another
    /// replica): the same identifier, the chain run for the token's URI with `request(uri)` (the
    /// current request's headers). `nil` when the token cannot rebuild (no URI in it). Throws like
    /// ``openSession(for:initialViewModel:lazy:admission:)`` for the token's URI, and
    /// `revocationsUnavailable` for a token not held here while a shared store's revocations
    /// are not loaded yet.
    ///
    /// A rebuilt session enters the store's probation segment like a new one (a later use
    /// promotes it) and never evicts a used session; `admission` is asked first. With `store`
    /// false (`HEAD`) nothing is stored and nothing is asked. When its load fails it is not kept.
    nonisolated(nonsending) func resolve(
        _ token: SessionToken, request: (String) -> ViewRequest, admission: () -> SessionAdmission = { .admit },
        store: Bool = true
    ) async throws(EngineError) -> ResolvedSession? {
        if let held = sessions.session(token.id) { return .held(held) }
        // Not loaded yet (just started, or the shared store was unavailable since the start): load
        // now (one request at a time); failing that the token may have been revoked on another
        // replica, so it is neither rebuilt nor refused.
        if revocationOutbox.beginLoading() {
            _ = try? await loadRevocations()
            revocationOutbox.endLoading()
        }
        guard revocationOutbox.isLoaded else {
            throw EngineError(.revocationsUnavailable, "the state store is unavailable: try again shortly")
        }
        guard let viewURI = token.viewURI, !revoked.isRevoked(token.id, now: configuration.wallClock()) else { return nil }
        let removal = sessions.removalReason(token.id)
        // Ended here (its feature removed by a reload, or ended in process): not brought back.
        if removal == .deleted { return nil }
        // The locale the session was opened with, which its token carries, not this request's.
        let rebuilding = request(viewURI)
        let started = try await start(
            token.locale.map { rebuilding.with(locale: $0) } ?? rebuilding, initialViewModel: nil, storage: store ? .rebuild : .none, id: token, needsSession: true,
            admission: admission)
        let (session, state, joined) = (started.session!, started.state, started.joined)  // needsSession: always made
        // Set by the first run, which has settled by now (a joined request waited for it).
        let outcome = await session.firstRunState
        guard state.viewModel != nil, store else { return .rebuilt(session, state, reason: nil, stateOutcome: outcome) }
        let reason: SessionStore.RebuildReason?
        switch removal {
        case .evicted: reason = .evicted
        case .expired: reason = .expired
        case .deleted, nil: reason = token.lazy ? nil : .unknown
        }
        // Counted once: a request that joined another's rebuild of the same session does not count it again.
        if let reason, !joined {
            sessions.recordRebuild(token.id, reason: reason)
            if let outcome { counters.countRebuiltState(outcome) }
        }
        return .rebuilt(session, state, reason: reason, stateOutcome: outcome)
    }

    /// Revoked tokens remembered now (each until it would have expired).
    public var revokedTokens: Int { revoked.count }

    /// Forgets revocations of tokens that have expired since; returns how many (the sweeper
    /// calls it with the session sweep).
    @discardableResult
    public func pruneRevocations() -> Int {
        revoked.prune(now: configuration.wallClock())
    }

    /// Ends the session `id` held here (no revocation: its token may rebuild it); returns whether
    /// it existed.
    @discardableResult
    public func endSession(_ id: String) -> Bool {
        sessions.remove(id)
    }
}
