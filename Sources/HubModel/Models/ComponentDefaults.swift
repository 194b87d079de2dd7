/// The namespace, name and category every new component builder starts with (S68, S186).
///
/// HubFramework takes them from the app's fallback handler; HubServer takes them from
/// `server.json` (`components`), with HubFramework's built-in `default:row` / `row`.
///
/// The three strings live in one immutable box that every copy shares: a view model builder
/// holds three copies (its own, its body's and its overlays'), and every snapshot a held session
/// keeps is one, so a copy is a pointer rather than three strings (memory per held session).
public struct ComponentDefaults: Sendable, Hashable {
    private final class Storage: Sendable {
        let namespace: String
        let name: String
        let category: String

        init(namespace: String, name: String, category: String) {
            self.namespace = namespace
            self.name = name
            self.category = category
        }
    }

    private var storage: Storage

    public var namespace: String {
        get { storage.namespace }
        set { storage = Storage(namespace: newValue, name: storage.name, category: storage.category) }
    }

    public var name: String {
        get { storage.name }
        set { storage = Storage(namespace: storage.namespace, name: newValue, category: storage.category) }
    }

    public var category: String {
        get { storage.category }
        set { storage = Storage(namespace: storage.namespace, name: storage.name, category: newValue) }
    }

    public init(namespace: String = "default", name: String = "row", category: String = "row") {
        storage = Storage(namespace: namespace, name: name, category: category)
    }

    /// `default:row`, category `row`: HubFramework's `HUBDefaultComponentFallbackHandler`.
    public static let standard = ComponentDefaults()

    /// The component identifier new builders get.
    public var componentIdentifier: ComponentIdentifier {
        ComponentIdentifier(namespace: namespace, name: name)
    }

    public static func == (lhs: ComponentDefaults, rhs: ComponentDefaults) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.namespace == rhs.namespace && lhs.name == rhs.name && lhs.category == rhs.category)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(namespace)
        hasher.combine(name)
        hasher.combine(category)
    }
}
