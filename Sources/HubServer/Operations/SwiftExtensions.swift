import HubEngine
import HubModel

/// What a Swift operation factory learns when a session is created.
public struct SwiftOperationContext: Sendable {
    /// The request that opened the session.
    public let request: ViewRequest
    /// The feature the operation belongs to.
    public let feature: FeatureInfo
    /// The component defaults from `server.json`.
    public let componentDefaults: ComponentDefaults
}

/// Operations and actions written in Swift by the app that embeds HubServer, registered by
/// the names `Config/` refers to (`{"kind": "swift", "name": ...}`).
public struct SwiftExtensions: Sendable {
    /// Makes a fresh operation for each new session.
    public typealias OperationMaker = @Sendable (SwiftOperationContext) -> any ContentOperation

    public private(set) var operations: [String: OperationMaker] = [:]
    public private(set) var actionFactories: [String: any ActionFactory] = [:]

    public init() {}

    /// Registers a content operation under `name`; a later registration replaces an earlier one.
    public mutating func registerOperation(_ name: String, _ make: @escaping OperationMaker) {
        operations[name] = make
    }

    /// Registers an action factory under `name` (`actions.json`: `{"kind": "swift", "name": ...}`).
    public mutating func registerActionFactory(_ name: String, _ factory: any ActionFactory) {
        actionFactories[name] = factory
    }
}
