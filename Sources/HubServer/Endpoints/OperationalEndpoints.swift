import HubEngine
import HubHTTP
import HubMetrics
import HubModel
import HubOperations
import HubPrimitives

/// `GET /health`, `GET /ready`, `GET /metrics`, `GET /features`.
///
/// Health, readiness and metrics are `no-store` (each answer is a moment's); `/features`
/// changes only with a config reload, so it is `no-cache` with an ETag: a client or cache
/// revalidates with `If-None-Match` and gets a 304 until a reload changes it
/// (``RepresentationMiddleware`` decides the 304).
struct OperationalEndpoints {
    let shared: SharedServices

    nonisolated(nonsending) func health(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let uptime = ContinuousClock.now - shared.startedAt
        var body = JSONObject()
        body["status"] = "ok"
        body["uptimeSeconds"] = .int(Int(uptime.inSeconds))
        body["sessions"] = .int(shared.engine.sessions.count)
        body["version"] = .string(HubServerVersion.current)
        return Self.uncached(JSONValue.object(body).jsonBytes)
    }

    /// A JSON answer no cache keeps.
    static func uncached(_ json: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: .bytes(json))
    }

    nonisolated(nonsending) func ready(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard !shared.isDraining else {
            throw HTTPError(.serviceUnavailable, code: "not_ready", detail: "the server is draining")
        }
        // The state store is shown, never required: every replica shares it, so failing readiness
        // for it would take down what needs no state too. Why it is unavailable (the driver's
        // text: host, port, role) is the log's, not this public answer's.
        let store = shared.engine.stateStore
        let status = store.status
        var described: JSONObject = ["backend": .string(store.backend), "available": .bool(status.available)]
        if !status.available { described["detail"] = .string(ProblemMapping.stateUnavailableDetail) }
        if let connected = status.changeFeedConnected { described["changeFeed"] = .bool(connected) }
        var body: JSONObject = ["status": "ready", "sessionKeys": .string(shared.sessionKeySource), "state": .object(described)]
        // Shown, never required: a provider's outage keeps the keys it had (tokens still verify).
        if let verifier = shared.verifier { body["identity"] = HubApplication.readiness(of: verifier) }
        return Self.uncached(JSONValue.object(body).jsonBytes)
    }

    nonisolated(nonsending) func metrics(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
            body: .bytes(Array(shared.metrics.registry.exposition().utf8)))
    }

    nonisolated(nonsending) func features(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-cache"],
            body: .representation(Representation(bytes: JSONValue.object(["features": .array(featureDescriptions())]).jsonBytes)))
    }

    /// What `GET /features` lists (and the preview's feature list shows), in feature order.
    func featureDescriptions() -> [JSONValue] {
        let probe = ViewRequest(viewURI: "")
        let features: [JSONValue] = shared.engine.features.features.map { feature in
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
            if let access = feature.access { object["access"] = AccessRuleReader.json(access) }
            // The toggles a QA override (`Hub-Toggle`) can force: none while overrides are off.
            let toggles = feature.overridableToggles
            if !toggles.isEmpty {
                object["toggles"] = .array(toggles.map { toggle in
                    ["name": .string(toggle.name), "values": .array(toggle.values.map { .string($0) }),
                     "default": .string(toggle.defaultValue)]
                })
            }
            return .object(object)
        }
        return features
    }
}

extension Feature {
    /// The toggles a configured feature's chain reads and `Hub-Toggle` may force (none for a
    /// feature built in Swift, none while `allowToggleOverride` is false).
    var overridableToggles: [ToggleDefinition] {
        operationFactories.compactMap { $0 as? ConfiguredOperationFactory }.flatMap(\.overridableToggles)
    }
}
