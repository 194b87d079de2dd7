/// One built component: immutable, shared freely between sessions and threads.
///
/// Equality compares every property except `index` and `indexPath` (S81).
public final class ComponentModel: Sendable, Equatable {
    public let identifier: String
    public let type: ComponentType
    /// Position within its container after preferred-index ordering (S63).
    public let index: Int
    /// Indexes from the root container down to this component (S67).
    public let indexPath: [Int]
    public let groupIdentifier: String?
    public let componentIdentifier: ComponentIdentifier
    public let componentCategory: String
    public let title: String?
    public let subtitle: String?
    public let accessoryTitle: String?
    public let descriptionText: String?
    public let mainImageData: ComponentImageData?
    public let backgroundImageData: ComponentImageData?
    /// Custom images in insertion order; each carries its name as `identifier`.
    public let customImageData: [ComponentImageData]
    public let icon: String?
    public let target: ComponentTarget?
    public let metadata: JSONObject?
    public let loggingData: JSONObject?
    public let customData: JSONObject?
    public let children: [ComponentModel]

    public init(
        identifier: String, type: ComponentType, index: Int = 0, indexPath: [Int] = [],
        groupIdentifier: String? = nil,
        componentIdentifier: ComponentIdentifier, componentCategory: String,
        title: String? = nil, subtitle: String? = nil, accessoryTitle: String? = nil, descriptionText: String? = nil,
        mainImageData: ComponentImageData? = nil, backgroundImageData: ComponentImageData? = nil,
        customImageData: [ComponentImageData] = [], icon: String? = nil, target: ComponentTarget? = nil,
        metadata: JSONObject? = nil, loggingData: JSONObject? = nil, customData: JSONObject? = nil,
        children: [ComponentModel] = []
    ) {
        self.identifier = identifier
        self.type = type
        self.index = index
        self.indexPath = indexPath.isEmpty ? [index] : indexPath
        self.groupIdentifier = groupIdentifier
        self.componentIdentifier = componentIdentifier
        self.componentCategory = componentCategory
        self.title = title
        self.subtitle = subtitle
        self.accessoryTitle = accessoryTitle
        self.descriptionText = descriptionText
        self.mainImageData = mainImageData
        self.backgroundImageData = backgroundImageData
        self.customImageData = customImageData
        self.icon = icon
        self.target = target
        self.metadata = metadata
        self.loggingData = loggingData
        self.customData = customData
        self.children = children
    }

    /// The custom image with this name (S70).
    public func customImage(named name: String) -> ComponentImageData? {
        customImageData.first { $0.identifier == name }
    }

    /// The child at `index`, or `nil` when out of range (S67).
    public func child(at index: Int) -> ComponentModel? {
        children.indices.contains(index) ? children[index] : nil
    }

    /// The child with this identifier, or `nil` (S67).
    public func child(withIdentifier identifier: String) -> ComponentModel? {
        children.first { $0.identifier == identifier }
    }

    /// The children whose group is `group`, in child order; `nil` when there are none (S76).
    public func children(inGroup group: String) -> [ComponentModel]? {
        let members = children.filter { $0.groupIdentifier == group }
        return members.isEmpty ? nil : members
    }

    public static func == (lhs: ComponentModel, rhs: ComponentModel) -> Bool {
        if lhs === rhs { return true }
        return lhs.identifier == rhs.identifier && lhs.type == rhs.type
            && lhs.groupIdentifier == rhs.groupIdentifier
            && lhs.componentIdentifier == rhs.componentIdentifier
            && lhs.componentCategory == rhs.componentCategory
            && lhs.title == rhs.title && lhs.subtitle == rhs.subtitle
            && lhs.accessoryTitle == rhs.accessoryTitle && lhs.descriptionText == rhs.descriptionText
            && lhs.mainImageData == rhs.mainImageData && lhs.backgroundImageData == rhs.backgroundImageData
            && lhs.customImageData == rhs.customImageData && lhs.icon == rhs.icon
            && lhs.target == rhs.target && lhs.metadata == rhs.metadata
            && lhs.loggingData == rhs.loggingData && lhs.customData == rhs.customData
            && lhs.children == rhs.children
    }
}
