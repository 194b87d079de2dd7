import HubEngine
import HubHTTP

/// How endpoints find the session a client names by its token (`Hub-Session`): the one this
/// process holds (the exact token text it issued), or one rebuilt from the token (evicted,
/// expired, restarted, another replica) once the token verifies (``ViewEngine/verify(_:)``: its
/// MAC, its age, not revoked). Anything else (garbage, a forged or tampered token, another
/// server's key, an expired or revoked token, a token whose view no feature serves any more)
/// is 404 `session_not_found`, stores nothing and reaches no upstream.
struct SessionLookup {
    let shared: SharedServices

    /// A session found or rebuilt. `rebuiltState`: the result of the rebuild's first load
    /// (the chain just ran for this request), `nil` for a held session. `stateOutcome`: what
    /// that load found of the session's own state, for `Hub-Rebuilt` (``RebuiltHeader``);
    /// `nil` for a held session and for a rebuild that read none.
    struct Found {
        let session: ViewSession
        let rebuiltState: ViewState?
        var stateOutcome: RebuiltState? = nil
    }

    /// The session `presented` names (``ViewEngine/presentedToken(_:)``, read once per request),
    /// or `nil` when it names nothing this process can serve.
    /// A rebuild whose load fails answers the view's problem (502/504/500), as a failed first
    /// load does, and keeps nothing; a rebuild the client's `limits.sessionsPerClient` refuses
    /// is 429. `store` false (`HEAD`): a rebuild is answered but not kept.
    /// `components`: the request's `Hub-Components`, for a rebuild's load.
    nonisolated(nonsending) func find(
        _ presented: PresentedToken, request: HTTPRequest, context: RequestContext, components: ClientComponents?,
        store: Bool = true
    ) async throws -> Found? {
        if let refusal = presented.refusal { throw refusal }
        if let held = presented.heldSession { return Found(session: held, rebuiltState: nil) }
        guard let token = presented.token else { return nil }
        let resolved: ViewEngine.ResolvedSession?
        do {
            resolved = try await shared.engine.resolve(
                token,
                request: { uri in
                    shared.bridge.viewRequest(viewURI: uri, from: request, context: context, components: components)
                }, admission: shared.admission(for: request, context: context), store: store)
        } catch where error.code == .featureNotFound {
            return nil  // a reload removed the view's feature: the token names nothing now
        } catch {
            throw error  // a problem (ProblemMiddleware)
        }
        switch resolved {
        case nil:
            return nil
        case .held(let session):
            return Found(session: session, rebuiltState: nil)
        case .rebuilt(let session, let viewState, _, let outcome):
            _ = try ViewRenderer(shared: shared).viewModel(of: viewState, token: nil)
            return Found(session: session, rebuiltState: viewState, stateOutcome: outcome)
        }
    }

    /// The engine's request for a view URI, made from this HTTP request.
    func viewRequests(
        _ request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) -> @Sendable (String) -> ViewRequest {
        { [shared] uri in shared.bridge.viewRequest(viewURI: uri, from: request, context: context, components: components) }
    }

    /// The view of the session a token names for `GET /view?session=` that needs waiting for,
    /// from what ``ViewEngine/loadHeld(_:request:)`` answered without suspending: a held session's
    /// pending load, or, for a token this process does not hold, a rebuilt session's first load.
    /// `nil` when it names nothing this process can serve (a held session whose load ended it,
    /// its feature removed by a reload, included: its identifier is remembered as ended, so its
    /// token rebuilds nothing). `rebuilt`: a rebuild's ``Found/stateOutcome``.
    nonisolated(nonsending) func resolveView(
        _ held: ViewEngine.HeldLoad, request: HTTPRequest, context: RequestContext,
        components: ClientComponents?, store: Bool = true
    ) async throws -> (session: ViewSession, state: ViewState, rebuilt: RebuiltState?)? {
        guard case .notHeld(let presented) = held else {
            return await held.resolved().map { ($0.session, $0.state, nil) }
        }
        guard let found = try await find(presented, request: request, context: context, components: components, store: store)
        else { return nil }
        if let rebuilt = found.rebuiltState { return (found.session, rebuilt, found.stateOutcome) }
        let makeRequest = viewRequests(request, context: context, components: components)
        return (found.session, await found.session.load(makeRequest(found.session.viewURI)), nil)
    }

    /// ``find(_:request:context:components:store:)``, or 404 `session_not_found`.
    nonisolated(nonsending) func require(
        _ presented: PresentedToken, request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) async throws -> Found {
        guard let found = try await find(presented, request: request, context: context, components: components) else {
            throw Self.notFound
        }
        return found
    }

    static let notFound = HTTPError(
        .notFound, code: "session_not_found",
        detail: "no such session: it ended, its token expired or was revoked, or it is not a token this server issued; open a new one with 'uri'")
}
