import HubMetrics
import HubEngine
import HubHTTP
import HubModel

/// `GET /health`, `GET /ready`, `GET /metrics`, `GET /features`.
struct OperationalEndpoints {
    let state: ServerState

    func health(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let uptime = ContinuousClock.now - state.startedAt
        var body = JSONObject()
        body["status"] = "ok"
        body["uptimeSeconds"] = .int(Int(uptime.components.seconds))
        body["sessions"] = .int(state.engine.sessions.count)
        body["version"] = .string(HubServerVersion.current)
        return .json(JSONValue.object(body).jsonBytes)
    }

    func ready(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard !state.isDraining else {
            throw HTTPError(.serviceUnavailable, code: "not_ready", detail: "the server is draining")
        }
        return .json(Array(#"{"status":"ready"}"#.utf8))
    }

    func metrics(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
            body: .bytes(Array(state.metrics.registry.exposition().utf8)))
    }

    func features(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let probe = ViewRequest(viewURI: "")
        let features: [JSONValue] = state.engine.features.features.map { feature in
            var object = JSONObject()
            object["id"] = .string(feature.identifier)
            object["title"] = .string(feature.title)
            object["predicate"] = .string(feature.predicate.description)
            object["operations"] = .array(feature.operationFactories.flatMap { $0.makeOperations(for: probe) }.map { .string($0.name) })
            switch feature.reloadPolicy {
            case .always: object["reload"] = "always"
            case .never: object["reload"] = "never"
            case .maxAge(let age): object["reload"] = ["maxAgeSeconds": .int(Int(age.components.seconds))]
            }
            if let schema = feature.schemaIdentifier { object["schema"] = .string(schema) }
            return .object(object)
        }
        return .json(JSONValue.object(["features": .array(features)]).jsonBytes)
    }
}
