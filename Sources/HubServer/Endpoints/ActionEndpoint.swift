import HubMetrics
import HubEngine
import HubHTTP
import HubModel

/// `POST /action {"session"?, "uri"?, "action"?, "component"?, "custom"?}`; the session may
/// come in the `Hub-Session` header instead (``SessionReference``).
struct ActionEndpoint {
    let state: ServerState
    let views: ViewEndpoints

    nonisolated(nonsending) func perform(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try JSONBody.object(from: request, maxDepth: state.settings.limits.jsonDepth)
        for key in body.orderedKeys where !["session", "uri", "action", "component", "custom"].contains(key) {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "unknown field '\(key)'")
        }
        let sessionID = try SessionReference.token(JSONBody.string(body, "session"), from: .body, in: request)
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
        guard sessionID != nil || uri != nil else {
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

        // The session, or a new one for `uri` when the client lost its server (restart, replica).
        // Held, or rebuilt from its token; else a new one for `uri` (a token that cannot rebuild).
        let components = try state.requestComponents(of: request)
        var session: ViewSession?
        if let sessionID {
            session = try await views.sessions.find(
                state.engine.presentedToken(sessionID), request: request, context: context, components: components
            )?.session
        }
        if session == nil {
            guard let uri else { throw SessionLookup.notFound }
            let opened = try await views.openSession(
                viewURI: try QueryParameters.viewURI(uri), request: request, context: context, components: components)
            // A failed first load answers like GET /view would (502/504/500).
            _ = try views.responder.viewModel(of: opened.state, sessionID: nil)
            session = opened.session
        }
        guard let session else { throw HTTPError.internalError }

        let outcome: ActionOutcome
        do {
            outcome = try await session.perform(
                ActionInvocation(action: action, componentIdentifier: component, customData: custom),
                request: state.bridge.viewRequest(viewURI: session.viewURI, from: request, context: context, components: components))
        } catch {
            state.metrics.actions.labels(namespaceLabel(action), "failed").increment()
            throw ProblemMapping.actionError(error)
        }
        state.metrics.actions.labels(namespaceLabel(action), outcome.performed ? "performed" : "not_performed").increment()

        let viewModel = try views.responder.viewModel(of: outcome.state, sessionID: session.token.encoded)
        let rendered = views.responder.rendered(
            viewModel, for: components, shared: outcome.state.isMemoized, viewURI: session.viewURI)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rendered.bytes.count + 32)
        bytes.append(contentsOf: outcome.performed ? Array(#"{"performed":true,"view":"#.utf8) : Array(#"{"performed":false,"view":"#.utf8))
        bytes.append(contentsOf: rendered.bytes)
        bytes.append(UInt8(ascii: "}"))
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        headers.add(name: "Hub-Session", value: session.token.encoded)
        headers.add(name: "Hub-Version", value: String(outcome.state.version))
        if let stale = ViewResponder.staleHeader(outcome.state.timings) { headers.add(name: "Hub-Stale", value: stale) }
        headers.add(name: "ETag", value: rendered.etag)
        return HTTPResponse(status: .ok, headers: headers, body: .bytes(bytes))
    }

    /// The `namespace` label of `hub_actions_total`: a namespace the registry knows, `selection`
    /// for a component selection, `unknown` for anything else (client text never becomes a label).
    private func namespaceLabel(_ action: ComponentIdentifier?) -> String {
        guard let action else { return "selection" }
        return state.engine.actions.hasNamespace(action.namespace) ? action.namespace : "unknown"
    }
}
