import HubHTTP

/// `GET /openapi.json`, `GET /schema/view-model.json` and `GET /schema/config/{file}`: the
/// contract documents, byte for byte `docs/openapi.json`, `docs/view-model.schema.json` and
/// `docs/schema/*.json` (``ContractDocuments``, embedded in the binary). Fixed for the binary's life:
/// cacheable for 5 minutes (`max-age=300`; no `public`: nothing here needs it, as no request is
/// authenticated), with an ETag (made once) to revalidate after that.
struct ContractEndpoints {
    private static let openAPIDocument = Representation(bytes: ContractDocuments.openAPI)
    private static let viewModelSchemaDocument = Representation(bytes: ContractDocuments.viewModelSchema)
    private static let configSchemaDocuments = ContractDocuments.configSchemas.mapValues { Representation(bytes: $0) }
    private static let configSchemaNames = configSchemaDocuments.keys.sorted().joined(separator: ", ")

    /// A document's 200: its media type, `max-age=300`, the bytes with their ETag.
    private static func document(_ representation: Representation, type: String) -> HTTPResponse {
        HTTPResponse(
            status: .ok, headers: ["Content-Type": type, "Cache-Control": "max-age=300"],
            body: .representation(representation))
    }

    nonisolated(nonsending) func openAPI(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        Self.document(Self.openAPIDocument, type: "application/json")
    }

    nonisolated(nonsending) func viewModelSchema(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        Self.document(Self.viewModelSchemaDocument, type: "application/schema+json")
    }

    /// A config file's JSON Schema by file name (`server.json`, `feature.json`, ...); another
    /// name is 404 `schema_not_found`, which lists the names (never echoing the request's).
    nonisolated(nonsending) func configSchema(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard let name = context.pathParameters["file"], let document = Self.configSchemaDocuments[name] else {
            throw HTTPError(.notFound, code: "schema_not_found", detail: "No config schema by that name; there are \(Self.configSchemaNames).")
        }
        return Self.document(document, type: "application/schema+json")
    }
}
