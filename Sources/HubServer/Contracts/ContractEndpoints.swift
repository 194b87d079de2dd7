import HubHTTP

/// `GET /openapi.json` and `GET /schema/view-model.json`: the contract documents, byte for byte
/// `docs/openapi.json` and `docs/view-model.schema.json` (embedded by `Tools/contracts.py`, so
/// the binary serves them from any directory).
struct ContractEndpoints {
    private static let openAPIBytes = Array(ContractDocuments.openAPI.utf8)
    private static let viewModelSchemaBytes = Array(ContractDocuments.viewModelSchema.utf8)

    func openAPI(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "public, max-age=300"],
            body: .bytes(Self.openAPIBytes))
    }

    func viewModelSchema(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/schema+json", "Cache-Control": "public, max-age=300"],
            body: .bytes(Self.viewModelSchemaBytes))
    }
}
