import HubHTTP

/// `GET /openapi.json`, `GET /schema/view-model.json` and `GET /schema/config/{file}`: the
/// contract documents, byte for byte `docs/openapi.json`, `docs/view-model.schema.json` and
/// `docs/schema/*.json` (embedded by `Tools/contracts.py`, so the binary serves them from any
/// directory).
struct ContractEndpoints {
    private static let openAPIBytes = Array(ContractDocuments.openAPI.utf8)
    private static let viewModelSchemaBytes = Array(ContractDocuments.viewModelSchema.utf8)
    private static let configSchemaBytes = ConfigSchemaDocuments.byName.mapValues { Array($0.utf8) }
    private static let configSchemaNames = configSchemaBytes.keys.sorted().joined(separator: ", ")

    nonisolated(nonsending) func openAPI(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "public, max-age=300"],
            body: .bytes(Self.openAPIBytes))
    }

    nonisolated(nonsending) func viewModelSchema(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/schema+json", "Cache-Control": "public, max-age=300"],
            body: .bytes(Self.viewModelSchemaBytes))
    }

    /// A config file's JSON Schema by file name (`server.json`, `feature.json`, ...); another
    /// name is 404 `schema_not_found`, which lists the names (never echoing the request's).
    nonisolated(nonsending) func configSchema(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard let name = context.pathParameters["file"], let bytes = Self.configSchemaBytes[name] else {
            throw HTTPError(.notFound, code: "schema_not_found", detail: "No config schema by that name; there are \(Self.configSchemaNames).")
        }
        return HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/schema+json", "Cache-Control": "public, max-age=300"],
            body: .bytes(bytes))
    }
}
