import HubModel

/// What ``ContentOperationWithInitialContent`` sees.
public struct InitialContentContext: Sendable {
    public let viewURI: String
    public let feature: FeatureInfo
    public let request: ViewRequest

    public init(viewURI: String, feature: FeatureInfo, request: ViewRequest) {
        self.viewURI = viewURI
        self.feature = feature
        self.request = request
    }
}
