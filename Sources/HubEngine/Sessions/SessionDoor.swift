/// What a request asks of the session its token names (``ViewEngine/session(named:user:bearerSuffices:need:sameClient:request:)``).
public enum SessionNeed: Sendable {
    /// Its view for this request (`GET /view?session=`, explain): a held session loads (its
    /// reload policy decides; a published settled view that answers the request needs no run),
    /// a rebuilt one answers its first load.
    case view
    /// The session itself (actions, the next page, event streams): a held session as it is,
    /// with no load; a rebuilt one once its first load made a view (else that load's problem is
    /// thrown: the ``ViewLoadError``, or ``EngineError/Code/noViewModel``).
    case session
}

/// The session a token named, found by ``ViewEngine/session(named:user:bearerSuffices:need:sameClient:request:)``.
public struct FoundSession: Sendable {
    /// The session: held here, or rebuilt from the token.
    public let session: ViewSession
    /// The view for this request: the held session's load, or a rebuild's first load (which may
    /// have failed: ``ViewState/failure``). `nil` when ``SessionNeed/session`` found a held session.
    public let state: ViewState?
    /// What a rebuild's first run found of the session's own state (`Hub-Rebuilt`); `nil` for a
    /// held session and for a rebuild that read none.
    public let rebuiltState: RebuiltState?
}

/// The answer of the session door: found now, with no suspension (a held session whose settled
/// view answers, or any held session when only the session is needed), or a run for later
/// (``PendingSession``).
public enum SessionAnswer: Sendable {
    /// Found without a run or a hop onto the session's actor: a session held for exactly the
    /// token text the request gave (its ``ViewSession/token`` encodes as that text).
    case now(FoundSession)
    /// Work that needs waiting for: ``PendingSession/run(request:admission:store:)``.
    case later(PendingSession)
}

/// The part of finding a session that suspends: a held session's load through its actor (its
/// reload policy may run the chain), the rebuild of a session this process does not hold from
/// its verified token, or the answer that the token names nothing this process can serve.
public struct PendingSession: Sendable {
    enum Work: Sendable {
        /// A held session's load, with its request made.
        case held(ViewEngine.PendingLoad)
        /// A verified token whose session is not held for exactly its text: held by identifier,
        /// or rebuilt from the token.
        case token(SessionToken)
        /// A refused token (garbage, forged, another server's key, expired, revoked).
        case nothing
    }

    let engine: ViewEngine
    let need: SessionNeed
    let work: Work

    /// The session, or `nil` when the token names nothing this process can serve (refused, a
    /// token that cannot rebuild, a session a config reload ended, its feature removed: its
    /// identifier is remembered as ended, so its token rebuilds nothing). Throws like
    /// ``ViewEngine/openSession(for:initialViewModel:lazy:admission:)`` for a rebuild (429 past
    /// `admission`, `revocationsUnavailable` while a shared store's revocations are not loaded),
    /// and for ``SessionNeed/session`` the problem of a rebuild whose first load failed.
    ///
    /// `request(uri)`: the engine's request for a view URI, made from the client's request (a
    /// rebuild's first load, a held session's load). `admission` is asked before a rebuild is
    /// stored; with `store` false (`HEAD`) a rebuild is answered but not kept.
    public func run(
        request: (String) -> ViewRequest, admission: () -> SessionAdmission = { .admit }, store: Bool = true
    ) async throws -> FoundSession? {
        switch work {
        case .nothing:
            return nil
        case .held(let pending):
            return await pending.run().map { FoundSession(session: $0.session, state: $0.state, rebuiltState: nil) }
        case .token(let token):
            let resolved: ViewEngine.ResolvedSession?
            do {
                resolved = try await engine.resolve(token, request: request, admission: admission, store: store)
            } catch where error.code == .featureNotFound {
                return nil  // a reload removed the view's feature: the token names nothing now
            } catch {
                throw error
            }
            switch resolved {
            case nil:
                return nil
            case .held(let session):
                guard need == .view else { return FoundSession(session: session, state: nil, rebuiltState: nil) }
                let pending = ViewEngine.PendingLoad(engine: engine, session: session, request: session.pinned(request(session.viewURI)))
                return await pending.run().map { FoundSession(session: $0.session, state: $0.state, rebuiltState: nil) }
            case .rebuilt(let session, let state, _, let outcome):
                if need == .session, state.viewModel == nil {
                    throw state.failure.map { $0 as any Error } ?? EngineError(.noViewModel, "the view has no content")
                }
                return FoundSession(session: session, state: state, rebuiltState: outcome)
            }
        }
    }
}

extension SessionAnswer {
    /// The session found: now, or by running the pending part
    /// (``PendingSession/run(request:admission:store:)``, which takes the same arguments);
    /// `nil` when the token names nothing this process can serve.
    public func found(
        request: (String) -> ViewRequest, admission: () -> SessionAdmission = { .admit }, store: Bool = true
    ) async throws -> FoundSession? {
        switch self {
        case .now(let found): return found
        case .later(let pending): return try await pending.run(request: request, admission: admission, store: store)
        }
    }

    /// ``found(request:admission:store:)``, or ``EngineError/sessionNotFound`` (404) when the
    /// token names nothing this process can serve.
    public func require(
        request: (String) -> ViewRequest, admission: () -> SessionAdmission = { .admit }, store: Bool = true
    ) async throws -> FoundSession {
        guard let found = try await found(request: request, admission: admission, store: store) else {
            throw EngineError.sessionNotFound
        }
        return found
    }
}

extension EngineError {
    /// A token that names no session this process can serve: 404 `session_not_found`.
    public static let sessionNotFound = EngineError(
        .sessionNotFound,
        "no such session: it ended, its token expired or was revoked, or it is not a token this server issued; open a new one with 'uri'")
}

extension ViewEngine {
    /// The session door: every request that names a session by its token (`Hub-Session`, or the
    /// `session` parameter) finds it here, reading the text once. The session held here for
    /// exactly that text (no MAC computed: ``held(_:user:bearerSuffices:)``) answers now when it
    /// can; anything else is a ``PendingSession`` to run: a held session's load, a session
    /// rebuilt from the token once it verifies (``verify(_:user:)``: its MAC, its age, not
    /// revoked; evicted, expired, restarted, another replica), or nothing (garbage, a forged or
    /// tampered token, another server's key, an expired or revoked token, a token whose view no
    /// feature serves any more), which stores nothing and reaches no upstream.
    ///
    /// `need`: ``SessionNeed/view`` answers now when the session's published ``SettledView``
    /// answers the request (the same answer the session would give; the request is still
    /// recorded as the session's latest), ``SessionNeed/session`` for any held session.
    /// `request(uri)`: the request for the session's view URI, made only when the settled view
    /// needs it. `sameClient(uri, baseline)` answers whether `request(uri)` would be the same
    /// client request as `baseline` (``ViewRequest/sameClientRequest(as:)``) without making it
    /// (a client polling with the same headers is answered with no request made); it may say no
    /// when unsure, never yes when the request would differ.
    ///
    /// `user`: the request's verified user (a session is found only for the user who opened it);
    /// `bearerSuffices`: a request with no user may use a user's session (an event stream:
    /// EventSource sends no credentials). Throws, with nothing found, when the session's feature
    /// now refuses `user` (its access rule: ``EngineError/Code/insufficientClaims``).
    ///
    /// `now`: when the request arrived, on the clock the store times idle sessions with (a
    /// caller that read it already passes it: one clock reading fewer per request).
    public func session(
        named text: String, user: HubUser? = nil, bearerSuffices: Bool = false, need: SessionNeed,
        now: ContinuousClock.Instant = .now,
        sameClient: (String, ViewRequest) -> Bool = { _, _ in false }, request: (String) -> ViewRequest
    ) throws(EngineError) -> SessionAnswer {
        guard let (session, settled) = held(text, user: user, bearerSuffices: bearerSuffices, now: now) else {
            switch verify(text, user: user) {
            case .success(let token): return .later(PendingSession(engine: self, need: need, work: .token(token)))
            case .failure: return .later(PendingSession(engine: self, need: need, work: .nothing))
            }
        }
        if let refusal = accessRefusal(session, user: user) { throw refusal }
        guard need == .view else { return .now(FoundSession(session: session, state: nil, rebuiltState: nil)) }
        switch heldLoad(session, settled: settled, sameClient: sameClient, request: request) {
        case .now(let session, let state): return .now(FoundSession(session: session, state: state, rebuiltState: nil))
        case .later(let pending): return .later(PendingSession(engine: self, need: need, work: .held(pending)))
        case .notHeld: return .later(PendingSession(engine: self, need: need, work: .nothing))  // not answered by heldLoad
        }
    }
}
