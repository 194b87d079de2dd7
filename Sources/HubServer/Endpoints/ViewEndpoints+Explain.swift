import HubEngine
import HubHTTP
import HubModel
import HubOperations
import HubPrimitives

extension ViewEndpoints {
    /// Whether `GET /view` asks for explain mode: `explain=1` (or `true`); `0`, `false` or no
    /// parameter is the plain view. Another value is 400 `invalid_parameter`; asking while
    /// `debug.explain` is off is 400 `explain_disabled`.
    func explainRequested(_ request: HTTPRequest) throws -> Bool {
        guard let value = try QueryParameters.single("explain", in: request) else { return false }
        switch value {
        case "0", "false": return false
        case "1", "true": break
        default:
            throw HTTPError(.badRequest, code: "invalid_parameter", detail: "'explain' must be 1, true, 0 or false")
        }
        guard shared.settings.explainEnabled else {
            throw HTTPError(
                .badRequest, code: "explain_disabled",
                detail: "explain mode is off on this server: set \"debug\": {\"explain\": true} in server.json")
        }
        return true
    }

    /// `GET /view?explain=1` with `uri` or a session: the view (exactly the plain answer's
    /// fields, component fallback included) plus a top-level `"explain"` object listing the
    /// operations of the run that made it. Never cached (`no-store`, no ETag, not in the render
    /// cache); a plain request's bytes and ETag stay what they were.
    func explained(
        uri: String?, token: String?, request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) async throws -> HTTPResponse {
        var session: ViewSession?
        var viewState: ViewState?
        var operations: [OperationExplanation] = []
        var rebuilt: RebuiltState?
        let viewRequests = shared.bridge.viewRequests(from: request, context: context, components: components)
        if let token,
            let found = try await shared.engine.session(named: token, user: context.user, need: .view, request: viewRequests)
                .found(
                    request: viewRequests, admission: shared.admission(for: request, context: context),
                    store: request.method != .head)
        {
            session = found.session
            viewState = found.state
            rebuilt = found.rebuiltState
            operations = await found.session.explanation()
        } else {
            if token != nil && uri == nil { throw EngineError.sessionNotFound }
            let viewRequest = shared.bridge.viewRequest(
                viewURI: try QueryParameters.viewURI(uri), from: request, context: context, components: components)
            // A run that is not a memo hit takes a token of the client's session budget.
            (viewState, operations) = try await shared.engine.explainView(
                for: viewRequest, admission: shared.admission(for: request, context: context))
        }
        guard let viewState else { throw HTTPError.internalError }
        let token = session?.token.encoded
        let original = try renderer.viewModel(of: viewState, token: token)
        let viewURI = try session?.viewURI ?? QueryParameters.viewURI(uri)
        let client = renderer.clientViewModel(original, for: components, viewURI: viewURI)
        let body = Self.explainedBody(view: client.jsonBytes(), operations: operations)
        var headers = ViewResponseHeaders(viewState: viewState, token: token)
        headers.rebuilt = rebuilt
        return HTTPResponse(status: .ok, headers: headers.headers(cacheControl: "no-store"), body: .bytes(body))
    }

    /// The view's JSON object with `"explain": {"operations": [...]}` added as its last field.
    static func explainedBody(view: [UInt8], operations: [OperationExplanation]) -> [UInt8] {
        var list: [JSONValue] = []
        list.reserveCapacity(operations.count)
        for operation in operations {
            let outcome: String =
                operation.operation.configuredKind == "recover" && !operation.previousFailed && operation.outcome == .ran
                ? "skipped" : operation.outcome.rawValue
            list.append(
                .object(
                    JSONObject([
                        ("name", .string(operation.name)),
                        ("kind", .string(operation.operation.configuredKind)),
                        ("durationMs", .double((operation.duration.inMilliseconds * 1000).rounded() / 1000)),
                        ("outcome", .string(outcome)),
                        ("created", .array(operation.created.map { .string($0) })),
                        ("modified", .array(operation.modified.map { .string($0) })),
                        ("moved", .array(operation.moved.map { .string($0) })),
                        ("removed", .array(operation.removed.map { .string($0) })),
                    ])))
        }
        // The view is a JSON object (the view model's encoding).
        guard var envelope = JSONEnvelope(extending: view, extraCapacity: 256 * list.count) else { return view }
        envelope.add("explain", .object(JSONObject([("operations", .array(list))])))
        return envelope.finish()
    }
}
