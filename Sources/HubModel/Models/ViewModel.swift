/// A built view: immutable, shared freely between sessions and threads (1.1).
///
/// There is no build date: equality is content equality (S82), and the engine keeps load
/// times itself.
public final class ViewModel: Sendable, Equatable {
    /// The view identifier (`id`).
    public let identifier: String?
    /// The navigation bar title (`title`).
    public let title: String?
    public let header: ComponentModel?
    public let body: [ComponentModel]
    public let overlays: [ComponentModel]
    public let customData: JSONObject?

    public init(
        identifier: String? = nil, title: String? = nil, header: ComponentModel? = nil,
        body: [ComponentModel] = [], overlays: [ComponentModel] = [], customData: JSONObject? = nil
    ) {
        self.identifier = identifier
        self.title = title
        self.header = header
        self.body = body
        self.overlays = overlays
        self.customData = customData
    }

    /// An empty view model.
    public static let empty = ViewModel()

    /// The first component with this identifier: the header, then body and overlays, each
    /// searched depth-first through children.
    public func component(withIdentifier identifier: String) -> ComponentModel? {
        func search(_ models: [ComponentModel]) -> ComponentModel? {
            for model in models {
                if model.identifier == identifier { return model }
                if let found = search(model.children) { return found }
            }
            return nil
        }
        if let header {
            if header.identifier == identifier { return header }
            if let found = search(header.children) { return found }
        }
        return search(body) ?? search(overlays)
    }

    public static func == (lhs: ViewModel, rhs: ViewModel) -> Bool {
        if lhs === rhs { return true }
        return lhs.identifier == rhs.identifier && lhs.title == rhs.title && lhs.header == rhs.header
            && lhs.body == rhs.body && lhs.overlays == rhs.overlays && lhs.customData == rhs.customData
    }
}
