/// The namespace, name and category every new component builder starts with (S68, S186).
///
/// HubFramework takes them from the app's fallback handler; HubServer takes them from
/// `server.json` (`components`), with HubFramework's built-in `default:row` / `row`.
public struct ComponentDefaults: Sendable, Hashable {
    public var namespace: String
    public var name: String
    public var category: String

    public init(namespace: String = "default", name: String = "row", category: String = "row") {
        self.namespace = namespace
        self.name = name
        self.category = category
    }

    /// `default:row`, category `row`: HubFramework's `HUBDefaultComponentFallbackHandler`.
    public static let standard = ComponentDefaults()

    /// The component identifier new builders get.
    public var componentIdentifier: ComponentIdentifier {
        ComponentIdentifier(namespace: namespace, name: name)
    }
}
