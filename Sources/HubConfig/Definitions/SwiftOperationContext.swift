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
