import HubEngine
import HubHTTP

/// Verifies who a request comes from before any endpoint runs (``UserIdentity``), on every
/// endpoint: a request with no credentials goes on anonymous, with no task; a trusted gateway's
/// header names its user at once; a bearer token is verified (a task: its provider's keys may
/// need a fetch), unless it was verified lately and its lease answers (``AcceptedTokens``), and
/// its user set as the request's ``RequestContext/principal``. A credential
/// that does not verify is refused (401), never ignored.
struct IdentityGate: HTTPResponder {
    let next: any HTTPResponder
    let identity: UserIdentity

    func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer {
        switch try identity.credentials(of: request) {
        case .none:
            return try next.answer(to: request, context: context)
        case .user(let user):
            context.setPrincipal(user)
            return try next.answer(to: request, context: context)
        case .bearer(let token):
            // A token verified lately is answered at once from its lease, with no task.
            if let user = try identity.acceptedUser(token) {
                context.setPrincipal(user)
                return try next.answer(to: request, context: context)
            }
            // Kept where this event loop looks, wherever the verification's task ends.
            let place = identity.acceptedTokensPlace
            return .later { [next, identity] in
                context.setPrincipal(try await identity.verify(token, keepIn: place))
                switch try next.answer(to: request, context: context) {
                case .now(let response): return response
                case .later(let work): return try await work()
                }
            }
        }
    }
}

extension RequestContext {
    /// The request's verified user (set by ``IdentityGate``); `nil`: anonymous.
    var user: HubUser? { principal as? HubUser }
}
