import HubMetrics
import HubEngine
import HubHTTP
import HubModel

/// `POST /action {"session"?, "uri"?, "action"?, "component"?, "custom"?}`; the session may
/// come in the `Hub-Session` header instead (``SessionReference``). An `Idempotency-Key`
/// header makes a retry answer the first answer without performing again (``IdempotentActions``).
struct ActionEndpoint {
    let shared: SharedServices
    let views: ViewEndpoints

    /// Every request takes a token of its client's `limits.actionsPerClient` bucket first, a
    /// malformed one too (429 `too_many_actions` past it).
    nonisolated(nonsending) func perform(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        try shared.admitAction(request, context: context)
        let body = try JSONBody.object(from: request, maxDepth: shared.settings.limits.jsonDepth)
        for key in body.orderedKeys where !["session", "uri", "action", "component", "custom"].contains(key) {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "unknown field '\(key)'")
        }
        let token = try SessionReference.token(JSONBody.string(body, "session"), from: .body, in: request)
        let uri = try JSONBody.string(body, "uri")
        // An invalid uri is 400 even when the session it would recover is alive.
        if let uri { _ = try QueryParameters.viewURI(uri) }
        let actionText = try JSONBody.string(body, "action")
        let component = try JSONBody.string(body, "component")
        var custom: JSONObject?
        if let value = body["custom"] {
            guard let object = value.objectValue else {
                throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "'custom' must be an object")
            }
            custom = object
        }
        guard token != nil || uri != nil else {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "give 'session' (or the Hub-Session header) or 'uri', or both")
        }
        guard actionText != nil || component != nil else {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "give 'action' or 'component' (or both)")
        }
        var action: ComponentIdentifier?
        if let actionText {
            guard let identifier = ComponentIdentifier(string: actionText), !identifier.namespace.isEmpty, !identifier.name.isEmpty
            else {
                throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "'action' must be namespace:name")
            }
            action = identifier
        }
        let idempotencyKey = try IdempotentActions.key(of: request)

        // The session, or a new one for `uri` when the client lost its server (restart, replica).
        // Held, or rebuilt from its token; else a new one for `uri` (a token that cannot rebuild).
        let components = try shared.requestComponents(of: request)
        var session: ViewSession?
        // What a rebuild found of the session's state: `Hub-Rebuilt` on every answer to this request.
        var rebuilt: RebuiltState?
        if let token {
            let viewRequests = shared.bridge.viewRequests(from: request, context: context, components: components)
            let found = try await shared.engine.session(named: token, user: context.user, need: .session, request: viewRequests)
                .found(request: viewRequests, admission: shared.admission(for: request, context: context))
            session = found?.session
            rebuilt = found?.rebuiltState
        }
        if session == nil {
            guard let uri else { throw EngineError.sessionNotFound }
            let opened = try await views.openSession(
                viewURI: try QueryParameters.viewURI(uri), request: request, context: context, components: components)
            // A failed first load answers like GET /view would (502/504/500).
            _ = try views.renderer.viewModel(of: opened.state, token: nil)
            session = opened.session
        }
        guard let session else { throw HTTPError.internalError }

        guard let idempotencyKey else {
            return RebuiltHeader.adding(
                rebuilt,
                to: try await perform(
                    ActionInvocation(action: action, componentIdentifier: component, customData: custom), on: session,
                    request: request, context: context, components: components
                ).response)
        }
        let store = shared.engine.stateStore
        let claim: IdempotentActions.Claim
        switch try await IdempotentActions.start(
            key: idempotencyKey, body: request.body, session: session.id, store: store, now: shared.engine.configuration.wallClock())
        {
        case .replay(let response): return RebuiltHeader.adding(rebuilt, to: response)
        case .replayLatest(let performed):
            // The first answer was too large to keep: whether it was performed, and the view now.
            let viewState = await session.load(
                shared.bridge.viewRequest(viewURI: session.viewURI, from: request, context: context, components: components))
            var response = try answer(performed: performed, viewState: viewState, session: session, components: components)
            response.headers.add(name: "Idempotent-Replayed", value: "true")
            return RebuiltHeader.adding(rebuilt, to: response)
        case .claimed(let taken): claim = taken
        }
        do {
            let (response, performed) = try await perform(
                ActionInvocation(action: action, componentIdentifier: component, customData: custom), on: session,
                request: request, context: context, components: components)
            if case .bytes(let body) = response.body {
                await IdempotentActions.finish(
                    claim, response: response, body: body, performed: performed,
                    maxBytes: shared.engine.configuration.stateSettings.maxValueBytes, store: store,
                    now: shared.engine.configuration.wallClock())
            }
            // Added after the answer is kept: a replay tells of its own request's rebuild, not this one's.
            return RebuiltHeader.adding(rebuilt, to: response)
        } catch {
            await IdempotentActions.abandon(claim, after: error, store: store)
            throw error
        }
    }

    /// Performs `invocation` on `session` and answers `{"performed", "view"}` (and whether it was performed).
    private nonisolated(nonsending) func perform(
        _ invocation: ActionInvocation, on session: ViewSession, request: HTTPRequest, context: RequestContext,
        components: ClientComponents?
    ) async throws -> (response: HTTPResponse, performed: Bool) {
        let action = invocation.action
        let outcome: ActionOutcome
        do {
            outcome = try await session.perform(
                invocation,
                request: shared.bridge.viewRequest(viewURI: session.viewURI, from: request, context: context, components: components))
        } catch {
            shared.metrics.actions.labels(namespaceLabel(action), "failed").increment()
            throw ActionFailure(underlying: error)  // mapped by the problem door
        }
        shared.metrics.actions.labels(namespaceLabel(action), outcome.performed ? "performed" : "not_performed").increment()
        return (
            try answer(performed: outcome.performed, viewState: outcome.state, session: session, components: components),
            outcome.performed
        )
    }

    /// `{"performed", "view"}` for `viewState`, with the session's headers.
    private func answer(
        performed: Bool, viewState: ViewState, session: ViewSession, components: ClientComponents?
    ) throws -> HTTPResponse {
        let viewModel = try views.renderer.viewModel(of: viewState, token: session.token.encoded)
        let rendered = views.renderer.rendered(
            viewModel, for: components, memoized: viewState.isMemoized, viewURI: session.viewURI)
        var envelope = JSONEnvelope(capacity: rendered.bytes.count + 32)
        envelope.add("performed", .bool(performed))
        envelope.add("view", encoded: rendered.bytes)
        let bytes = envelope.finish()
        var headers = ViewResponseHeaders(viewState: viewState, token: session.token.encoded)
        headers.etag = rendered.etag
        headers.locale = session.locale
        return HTTPResponse(status: .ok, headers: headers.headers(cacheControl: "no-store"), body: .bytes(bytes))
    }

    /// The `namespace` label of `hub_actions_total`: a namespace the registry knows, `selection`
    /// for a component selection, `unknown` for anything else (client text never becomes a label).
    private func namespaceLabel(_ action: ComponentIdentifier?) -> String {
        guard let action else { return "selection" }
        return shared.engine.actions.hasNamespace(action.namespace) ? action.namespace : "unknown"
    }
}
