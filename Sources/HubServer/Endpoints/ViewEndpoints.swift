import HubMetrics
import HubEngine
import HubHTTP
import HubModel

/// `GET /view`, `GET /view/initial`, `POST /view/next-page`, `DELETE /view`, `GET /view/events`.
struct ViewEndpoints {
    let shared: SharedServices
    var renderer: ViewRenderer { ViewRenderer(shared: shared) }

    /// `GET /view?uri=U` opens a session; `GET /view?session=S` (or the `Hub-Session` header,
    /// ``SessionReference``) loads it (reload policy decides). A session that cannot be found
    /// or rebuilt falls back to `uri` when both are given.
    ///
    /// `HEAD` is served here too (the HTTP layer drops the body). It is safe (RFC 9110 9.2.1):
    /// with `uri` it answers the status and headers GET would, but keeps no session, so it
    /// sends no `Hub-Session`. With a live `session` it names that session, as GET does.
    ///
    /// Answered now, with no task, for a held session whose settled view answers the request and
    /// for a `GET` of a view the chain memo answers (and every 400 of the parameters); the rest
    /// is work for later, which carries what was made here (nothing is made twice).
    /// `explain=1` (with `debug.explain` on) answers how the view was made instead
    /// (``explained(uri:token:request:context:components:)``).
    func getView(_ request: HTTPRequest, _ context: RequestContext) throws -> HTTPAnswer {
        let (uri, components, token) = try parameters(of: request)
        if try explainRequested(request) {
            return .later { [self] in
                try await explained(uri: uri, token: token, request: request, context: context, components: components)
            }
        }
        guard let token else { return try open(uri, request: request, context: context, components: components) }
        // Closure literals, not `bridge.viewRequests(...)`: no escaping closure context is
        // allocated on the settled path. A client polling with the same headers is answered
        // without a view request made (`sameClient`).
        let bridge = shared.bridge
        let user = context.user
        let answer = try shared.engine.session(
            named: token, user: user, need: .view, now: context.startTime,
            sameClient: { uri, baseline in
                bridge.isSameClientRequest(viewURI: uri, from: request, user: user, components: components, as: baseline)
            },
            request: { uri in bridge.viewRequest(viewURI: uri, from: request, context: context, components: components) })
        let pending: PendingSession
        switch answer {
        case .now(let found):
            guard let viewState = found.state else { throw HTTPError.internalError }  // .view: always a state
            // Held for exactly `token`'s text: named by it with no second comparison.
            return .now(
                try renderer.response(
                    for: viewState, token: token, components: components, viewURI: found.session.viewURI,
                    locale: found.session.locale))
        case .later(let later):
            pending = later
        }
        return .later { [self] in
            // HEAD is safe (RFC 9110 9.2.1): it never stores a session, not even a rebuilt one.
            if let found = try await pending.run(
                request: bridge.viewRequests(from: request, context: context, components: components),
                admission: shared.admission(for: request, context: context), store: request.method != .head),
                let viewState = found.state
            {
                return RebuiltHeader.adding(
                    found.rebuiltState, to: try response(found.session, viewState, token: token, components: components))
            }
            guard uri != nil else { throw EngineError.sessionNotFound }
            switch try open(uri, request: request, context: context, components: components) {
            case .now(let response): return response
            case .later(let work): return try await work()
            }
        }
    }

    /// `GET /view?uri=`: a memoized view stores no session (and makes none): its token creates
    /// it on first use. `HEAD` runs the chain (memo included) and keeps nothing.
    ///
    /// A client request the memo answered recently is recognized from the HTTP request in place
    /// (``RequestBridge/isSameClientRequest(viewURI:from:user:components:as:)``): no view
    /// request is made for it (closure literals: nothing escapes, nothing is allocated for them).
    private func open(_ uri: String?, request: HTTPRequest, context: RequestContext, components: ClientComponents?) throws -> HTTPAnswer {
        // ``parameters(of:)`` checked a given `uri`: only its absence is left (400 `missing_uri`).
        let viewURI = try uri ?? QueryParameters.viewURI(nil)
        let bridge = shared.bridge
        if request.method == .head {
            let viewRequest = bridge.viewRequest(viewURI: viewURI, from: request, context: context, components: components)
            return .later { [self] in
                // A run that is not a memo hit takes a token of the client's session budget.
                let viewState = try await shared.engine.loadView(
                    for: viewRequest, admission: shared.admission(for: request, context: context))
                return try renderer.response(
                    for: viewState, token: nil, components: components, viewURI: viewURI, locale: viewRequest.locale)
            }
        }
        let user = context.user
        // Alike for the answer: many apps asking for one view differ in the field their rollouts
        // bucket on, and those in the same buckets get the same view; decided by the bridge's
        // toggles only while the engine's features are its config's (read after the generation
        // the lookup checks entries against). The fingerprint counts buckets, not keys, either way.
        let engine = shared.engine
        let opening = try engine.openView(
            viewURI: viewURI, fingerprint: { bridge.keptFieldsFingerprint(of: request, answerAlike: true) },
            sameClient: { baseline in
                bridge.isSameClientRequest(
                    viewURI: viewURI, from: request, user: user, components: components, as: baseline,
                    answerAlike: bridge.installed == engine.definitionsInstalled)
            },
            request: { bridge.viewRequest(viewURI: viewURI, from: request, context: context, components: components) })
        // The token carries the request's locale (the view's, for its headers).
        switch opening {
        case .now(let token, let viewState):
            return .now(
                try renderer.response(
                    for: viewState, token: token.encoded, components: components, viewURI: viewURI, locale: token.locale))
        case .later(let pending):
            return .later { [self] in
                let opened = try await pending.run(admission: shared.admission(for: request, context: context))
                return try renderer.response(
                    for: opened.state, token: opened.token.encoded, components: components, viewURI: viewURI,
                    locale: opened.token.locale)
            }
        }
    }

    /// What `GET /view` reads of a request: the `uri` (checked, even when a live session is named too), the client's
    /// `Hub-Components`, and the session token (`?session=` or the `Hub-Session` header).
    private func parameters(
        of request: HTTPRequest
    ) throws -> (uri: String?, components: ClientComponents?, token: String?) {
        let uri = try QueryParameters.single("uri", in: request)
        if let uri { _ = try QueryParameters.viewURI(uri) }
        let components = try shared.requestComponents(of: request)
        let query = try QueryParameters.single("session", in: request)
        return (uri, components, try SessionReference.token(query, from: .query, in: request))
    }

    /// A found session's view, naming the token text the client sent when it is the session's
    /// (no need to encode it again).
    private func response(
        _ session: ViewSession, _ viewState: ViewState, token: String, components: ClientComponents?
    ) throws -> HTTPResponse {
        let answered = session.token.isEncoded(as: token) ? token : session.token.encoded
        return try renderer.response(
            for: viewState, token: answered, components: components, viewURI: session.viewURI, locale: session.locale)
    }

    /// Opens a session. When its first load fails the engine does not keep it (`state.viewModel`
    /// is `nil`); ``ViewRenderer`` then answers the problem without naming it.
    nonisolated(nonsending) func openSession(
        viewURI: String, request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) async throws -> (session: ViewSession, state: ViewState) {
        try await shared.engine.openSession(
            for: shared.bridge.viewRequest(viewURI: viewURI, from: request, context: context, components: components),
            admission: shared.admission(for: request, context: context))
    }

    /// `GET /view/initial?uri=U`: the initial content only.
    nonisolated(nonsending) func getInitialView(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let viewURI = try QueryParameters.viewURI(try QueryParameters.single("uri", in: request))
        let components = try shared.requestComponents(of: request)
        let viewRequest = shared.bridge.viewRequest(viewURI: viewURI, from: request, context: context, components: components)
        let viewModel = try shared.engine.initialViewModel(for: viewRequest)
        let bytes = renderer.clientViewModel(viewModel, for: components, viewURI: viewURI).jsonBytes()
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "private, no-cache"]
        LocaleHeaders.add(viewRequest.locale, to: &headers)
        return HTTPResponse(
            status: .ok, headers: headers,
            body: .representation(Representation(bytes: bytes, etag: shared.viewTags.etag(for: bytes))))
    }

    /// `POST /view/next-page {"session": S}` (or `{}` with the `Hub-Session` header): the full
    /// view with the next page appended.
    nonisolated(nonsending) func nextPage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try JSONBody.object(from: request, maxDepth: shared.settings.limits.jsonDepth)
        // As POST /action: an unknown field is a body of the wrong shape (422), not ignored.
        for key in body.orderedKeys where key != "session" {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "unknown field '\(key)'")
        }
        guard let token = try SessionReference.token(JSONBody.string(body, "session"), from: .body, in: request) else {
            throw HTTPError(
                .unprocessableContent, code: "invalid_body", detail: "give 'session' in the body or the Hub-Session header")
        }
        let components = try shared.requestComponents(of: request)
        let viewRequests = shared.bridge.viewRequests(from: request, context: context, components: components)
        let found = try await shared.engine.session(named: token, user: context.user, need: .session, request: viewRequests)
            .require(request: viewRequests, admission: shared.admission(for: request, context: context))
        let session = found.session
        let viewState = await session.loadNextPage()
        return RebuiltHeader.adding(
            found.rebuiltState,
            to: try renderer.response(
                for: viewState, token: session.token.encoded, components: components, viewURI: session.viewURI,
                locale: session.locale))
    }

    /// `DELETE /view?session=S` (or the `Hub-Session` header): revokes the token (204): its
    /// session ends here and, when it named a stored session or state, the token is refused
    /// until it would have expired: in this process, and on every replica that shares the state
    /// store. When the store cannot record it, 503 `state_unavailable`: the token is refused
    /// here at once and the revocation is written when the store returns; the client's retry
    /// answers 204 once it is (``ViewEngine/revoke(_:)``). A token revoked already answers 204.
    /// A token that does not verify (garbage, forged, expired) is 404 and is recorded nowhere.
    /// Revoking a token this process does not hold counts against the client's
    /// `limits.sessionsPerClient`.
    nonisolated(nonsending) func deleteView(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let query = try QueryParameters.single("session", in: request)
        guard let text = try SessionReference.token(query, from: .query, in: request), !text.isEmpty else {
            throw HTTPError(
                .badRequest, code: "missing_session", detail: "give the session to end: ?session=S or the Hub-Session header")
        }
        // A verified token is revoked whether or not this process holds its session (it may live
        // on another replica, or nowhere): the answer is the same, and it is not rebuilt here.
        let presented = shared.engine.presentedToken(text, user: context.user)
        if let refusal = presented.refusal { throw refusal }
        // Revoked already: DELETE is idempotent (the retry of one answered 503 during an outage).
        guard presented.token != nil || presented.rejection == .revoked else { throw EngineError.sessionNotFound }
        if presented.heldSession == nil, case .refuse(let retryAfter) = shared.admission(for: request, context: context)() {
            throw EngineError(.sessionRefused, "this client revoked too many sessions; try again later", retryAfterSeconds: retryAfter)
        }
        // A store that cannot record it: refused here already and kept (the store, so the other
        // replicas, records it when it returns); the answer is 503 state_unavailable.
        let revoked = try await shared.engine.revoke(presented)
        guard case .success = revoked else { throw EngineError.sessionNotFound }
        return HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])
    }
}
