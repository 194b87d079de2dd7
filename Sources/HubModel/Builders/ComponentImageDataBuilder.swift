/// Builds a ``ComponentImageData`` (S22, S24, S79).
public struct ComponentImageDataBuilder: Sendable, Equatable {
    public var uri: String?
    public var placeholder: String?
    public var localImageName: String?
    public var customData: JSONObject?

    public init(uri: String? = nil, placeholder: String? = nil, localImageName: String? = nil, customData: JSONObject? = nil) {
        self.uri = uri
        self.placeholder = placeholder
        self.localImageName = localImageName
        self.customData = customData
    }

    /// `true` when building would produce no image: no URI, placeholder, local image or
    /// non-empty custom data (S22).
    public var isEmpty: Bool {
        uri == nil && placeholder == nil && localImageName == nil && (customData?.isEmpty ?? true)
    }

    /// The image, or `nil` when the builder is empty (S22).
    public func build(type: ComponentImageType, identifier: String? = nil) -> ComponentImageData? {
        guard !isEmpty else { return nil }
        return ComponentImageData(
            identifier: identifier, type: type, uri: uri, placeholder: placeholder,
            localImageName: localImageName, customData: customData.nonEmpty)
    }
}
