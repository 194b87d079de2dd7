import HubEngine
import HubModel
import HubUpstream

/// `actions.json` `remote` namespace: every action name POSTs the action context as JSON
/// to the URL. 2xx means performed, 4xx not performed, 5xx or a timeout is an error the
/// server answers with 502/504 (DESIGN.md).
struct RemoteActionFactory: ActionFactory {
    let namespace: String
    let url: URLTemplate
    let timeout: Duration
    let headers: [(name: String, value: String)]
    let client: any UpstreamClient

    func makeAction(name: String) -> (any Action)? {
        RemoteAction(factory: self, name: name)
    }
}

struct RemoteAction: Action {
    let factory: RemoteActionFactory
    let name: String

    func perform(context: ActionContext) async throws -> ActionResult {
        let url = factory.url.expand(
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
        request.headers = factory.headers + [
            (name: "Content-Type", value: "application/json"), (name: "Accept", value: "application/json"),
        ]
        request.timeout = factory.timeout
        request.cachePolicy = .bypass
        let response = try await factory.client.send(request)
        switch response.status {
        case 200..<300: return .performed
        case 400..<500: return .notPerformed
        default: throw UpstreamError.httpStatus(response.status, body: response.body)
        }
    }
}
