import HubEngine
import HubModel
import HubUpstream

/// `actions.json` `remote` namespace: every action name POSTs the action context as JSON
/// to the URL. 2xx means performed, 4xx not performed, 5xx or a timeout is an error the
/// server answers with 502/504 (DESIGN.md).
package struct RemoteActionFactory: ActionFactory {
    package let namespace: String
    package let url: URLTemplate
    package let timeout: Duration
    package let headers: [(name: String, value: String)]
    /// Caller request headers sent on (``ForwardedHeaders``).
    package let forwardHeaders: [String]
    /// The header that carries the verified user's subject (`forwardIdentity`); `nil`: none.
    package let forwardIdentity: String?
    package let client: any UpstreamClient

    package init(namespace: String, url: URLTemplate, timeout: Duration, headers: [(name: String, value: String)], forwardHeaders: [String], forwardIdentity: String?, client: any UpstreamClient) {
        self.namespace = namespace
        self.url = url
        self.timeout = timeout
        self.headers = headers
        self.forwardHeaders = forwardHeaders
        self.forwardIdentity = forwardIdentity
        self.client = client
    }

    /// Names are restricted to `[A-Za-z0-9_-]{1,128}`: the name becomes part of the upstream
    /// URL (`{action.name}`), so a client must not be able to add path segments, a query or
    /// anything that needs encoding. Other names are unknown actions (404 `action_not_found`).
    package func makeAction(name: String) -> (any Action)? {
        guard Self.isValidName(name) else { return nil }
        return RemoteAction(factory: self, name: name)
    }

    package static func isValidName(_ name: String) -> Bool {
        let utf8 = name.utf8
        return !utf8.isEmpty && utf8.count <= 128
            && utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
}

package struct RemoteAction: Action {
    package let factory: RemoteActionFactory
    package let name: String

    package func perform(context: ActionContext) async throws -> ActionResult {
        // An action that names the user upstream needs one, as an operation that does.
        if context.request.user == nil, factory.forwardIdentity != nil || factory.url.usesUser { _ = try context.user }
        let url = try factory.url.resolve(
            URLTemplate.Values(
                request: context.request, sessionID: context.sessionID, actionName: name,
                actionNamespace: factory.namespace))
        var body = JSONObject()
        body["action"] = .string(context.actionIdentifier.identifierString)
        body["viewURI"] = .string(context.viewURI)
        if let component = context.componentModel { body["component"] = .string(component.identifier) }
        if let custom = context.customData { body["custom"] = .object(custom) }
        body["session"] = .string(context.sessionID)
        body["trigger"] = .string(context.trigger.rawValue)
        var request = UpstreamRequest(url: url)
        request.method = "POST"
        request.body = JSONValue.object(body).jsonBytes
        request.headers = ForwardedHeaders.merge(
            configured: factory.headers,
            forwarded: ForwardedHeaders.values(factory.forwardHeaders, identity: factory.forwardIdentity, from: context.request)) + [
            (name: "Content-Type", value: "application/json"), (name: "Accept", value: "application/json"),
        ]
        request.timeout = factory.timeout
        request.cachePolicy = .bypass
        request.traceHeaders = TraceContext.upstreamHeaders(
            traceParent: context.request.header(TraceContext.parentHeader),
            traceState: context.request.header(TraceContext.stateHeader))
        let response = try await factory.client.send(request)
        switch response.status {
        case 200..<300: return .performed
        case 400..<500: return .notPerformed
        default: throw UpstreamError.httpStatus(response.status, body: response.body)
        }
    }
}
