import HubModel
import HubOperations

/// Everything `Config/` declares, validated and ready to build a server from.
public struct LoadedConfiguration: Sendable {
    /// The directory it was read from.
    public let directory: String
    public var settings: ServerSettings
    /// Features in precedence order (`order`, then file name).
    package let features: [FeatureDefinition]
    /// Custom schemas by identifier.
    package let schemas: [String: JSONSchema]
    /// Toggles by name.
    package let toggles: [String: ToggleDefinition]
    /// Action namespaces in file order.
    package let actions: [(namespace: String, definition: ActionDefinition)]
    /// Warnings found while loading (unknown keys and the like).
    public let warnings: [ConfigIssue]
    /// FNV-1a digests of the files read, by path relative to ``directory``: what a reload
    /// compares to tell which features changed.
    package let fileDigests: [String: UInt64]
    /// The string catalogs (`strings/<locale>.json`), by supported locale.
    package var strings = StringCatalogs()
}
