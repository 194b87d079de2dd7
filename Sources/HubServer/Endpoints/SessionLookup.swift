import HubEngine
import HubHTTP

/// How endpoints find the session a client names by its token (`Hub-Session`): the one this
/// process holds, or one rebuilt from the token (evicted, expired, restarted, another
/// replica), transparently. Garbage, id-only tokens this process does not hold and sessions
/// deleted here are 404 `session_not_found`.
struct SessionLookup {
    let state: ServerState

    /// A session found or rebuilt. `rebuiltState`: the result of the rebuild's first load
    /// (the chain just ran for this request), `nil` for a held session.
    struct Found {
        let session: ViewSession
        let rebuiltState: ViewState?
    }

    /// The session named by `text`, or `nil` when it names nothing this process can serve.
    /// A rebuild whose load fails answers the view's problem (502/504/500), as a failed first
    /// load does, and keeps nothing.
    /// `components`: the request's `Hub-Components`, for a rebuild's load.
    nonisolated(nonsending) func find(
        _ text: String, request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) async throws -> Found? {
        // Held: found by the identifier alone (the URI is read only to rebuild).
        guard let id = SessionToken.identifier(of: text) else { return nil }
        if let held = state.engine.session(id) { return Found(session: held, rebuiltState: nil) }
        guard let token = SessionToken(text) else { return nil }
        let resolved: ViewEngine.ResolvedSession?
        do {
            resolved = try await state.engine.resolve(token) { uri in
                state.bridge.viewRequest(viewURI: uri, from: request, context: context, components: components)
            }
        } catch {
            throw ProblemMapping.engineError(error)
        }
        switch resolved {
        case nil:
            return nil
        case .held(let session):
            return Found(session: session, rebuiltState: nil)
        case .rebuilt(let session, let viewState, _):
            _ = try ViewResponder(state: state).viewModel(of: viewState, sessionID: nil)
            return Found(session: session, rebuiltState: viewState)
        }
    }

    /// The view of the session named by `text` for `GET /view?session=`: a held session loaded
    /// for this request (its reload policy decides; a load that runs nothing is answered without
    /// the session's actor, ``ViewEngine/loadHeld(_:request:)``), or a rebuilt one's first load.
    /// `nil` when it names nothing this process can serve.
    nonisolated(nonsending) func loadView(
        _ text: String, request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) async throws -> (session: ViewSession, state: ViewState)? {
        guard let id = SessionToken.identifier(of: text) else { return nil }
        let makeRequest = { (uri: String) in
            state.bridge.viewRequest(viewURI: uri, from: request, context: context, components: components)
        }
        if let held = await state.engine.loadHeld(id, request: makeRequest) { return held }
        guard let found = try await find(text, request: request, context: context, components: components) else { return nil }
        if let rebuilt = found.rebuiltState { return (found.session, rebuilt) }
        return (found.session, await found.session.load(makeRequest(found.session.viewURI)))
    }

    /// ``loadView(_:request:context:components:)`` when it can answer without suspending: a held
    /// session whose settled view answers this request (``ViewEngine/loadHeldImmediately(_:request:)``);
    /// `nil` otherwise (then that method gives the answer).
    func loadViewImmediately(
        _ text: String, request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) -> (session: ViewSession, state: ViewState)? {
        guard let id = SessionToken.identifier(of: text) else { return nil }
        return state.engine.loadHeldImmediately(id) { uri in
            state.bridge.viewRequest(viewURI: uri, from: request, context: context, components: components)
        }
    }

    /// ``find(_:request:context:components:)``, or 404 `session_not_found`.
    nonisolated(nonsending) func require(
        _ text: String, request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) async throws -> Found {
        guard let found = try await find(text, request: request, context: context, components: components) else { throw Self.notFound }
        return found
    }

    static let notFound = HTTPError(
        .notFound, code: "session_not_found",
        detail: "no such session: it ended or its token cannot be rebuilt; open a new one with 'uri'")
}
