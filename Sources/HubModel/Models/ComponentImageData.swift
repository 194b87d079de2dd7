/// An image of a component: a URI, a placeholder icon name, a bundled image name and free-form data.
///
/// Unlike HubFramework, the server keeps `placeholder` without an icon resolver and serializes
/// `local` and `custom` (DESIGN.md): the server is the source, nothing an operation set is lost.
public struct ComponentImageData: Sendable, Equatable {
    /// The name of a custom image (S70); `nil` for main and background.
    public var identifier: String?
    public var type: ComponentImageType
    /// The image URI (validated as an RFC 3986 URI reference, S9).
    public var uri: String?
    /// Placeholder icon identifier.
    public var placeholder: String?
    /// Name of an image bundled in the client.
    public var localImageName: String?
    public var customData: JSONObject?

    public init(
        identifier: String? = nil, type: ComponentImageType, uri: String? = nil, placeholder: String? = nil,
        localImageName: String? = nil, customData: JSONObject? = nil
    ) {
        self.identifier = identifier
        self.type = type
        self.uri = uri
        self.placeholder = placeholder
        self.localImageName = localImageName
        self.customData = customData
    }
}
