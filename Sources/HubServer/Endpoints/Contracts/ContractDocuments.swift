/// The contract documents the server serves: byte for byte the files in docs/ (written, with
/// their copies in `Resources/`, by `python3 Tools/contracts.py`), embedded in the binary by
/// SwiftPM (`PackageResources`), so the binary serves them from any directory.
enum ContractDocuments {
    /// `docs/openapi.json`, served at `GET /openapi.json`.
    static let openAPI: [UInt8] = PackageResources.openapi_json

    /// `docs/view-model.schema.json`, served at `GET /schema/view-model.json`.
    static let viewModelSchema: [UInt8] = PackageResources.view_model_schema_json

    /// The config files' JSON Schemas by file name (`server.json`, ...): `docs/schema/NAME.json`,
    /// served at `GET /schema/config/NAME.json`.
    static let configSchemas: [String: [UInt8]] = [
        "actions.json": PackageResources.actions_json,
        "custom-schema.json": PackageResources.custom_schema_json,
        "feature.json": PackageResources.feature_json,
        "server.json": PackageResources.server_json,
        "toggles.json": PackageResources.toggles_json,
    ]
}
