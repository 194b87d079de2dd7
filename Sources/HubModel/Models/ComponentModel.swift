/// One built component: immutable, shared freely between sessions and threads.
///
/// Equality compares every property except `index` and `indexPath` (S81).
///
/// Stored compactly, since held sessions keep one object per component: the fields nearly every
/// component sets (identifier, component, category, title, children) inline, the target in a box
/// of its own, and the rarely set ones (group, the other texts, images, icon, free-form data) in
/// one shared box that a component without them does not allocate. The index path is not stored
/// per component: siblings share their container's path.
public final class ComponentModel: Sendable, Equatable {
    public let identifier: String
    /// `namespace:name` of the component implementation.
    public let componentIdentifier: ComponentIdentifier
    public let componentCategory: String
    public let title: String?
    public let children: [ComponentModel]
    /// The index path of the container this component sits in (empty at the root), shared by
    /// its siblings.
    private let containerPath: [Int]
    private let targetStorage: TargetStorage?
    private let details: Details?
    /// Position within the container; a view cannot hold 2^31 components.
    private let storedIndex: Int32
    public let type: ComponentType

    /// The target's fields, without the `ComponentTarget` value's padding.
    private final class TargetStorage: Sendable {
        let uri: String?
        let actionIdentifiers: [ComponentIdentifier]
        /// The initial view model and custom data, rarely set on a target.
        let rest: TargetRest?

        init(_ target: ComponentTarget) {
            uri = target.uri
            actionIdentifiers = target.actionIdentifiers
            rest = target.initialViewModel == nil && target.customData == nil
                ? nil : TargetRest(initialViewModel: target.initialViewModel, customData: target.customData)
        }

        var target: ComponentTarget {
            ComponentTarget(
                uri: uri, initialViewModel: rest?.initialViewModel, actionIdentifiers: actionIdentifiers,
                customData: rest?.customData)
        }
    }

    private final class TargetRest: Sendable {
        let initialViewModel: ViewModel?
        let customData: JSONObject?

        init(initialViewModel: ViewModel?, customData: JSONObject?) {
            self.initialViewModel = initialViewModel
            self.customData = customData
        }
    }

    /// The fields most components leave empty.
    private final class Details: Sendable {
        let groupIdentifier: String?
        let subtitle: String?
        let accessoryTitle: String?
        let descriptionText: String?
        let icon: String?
        let images: Images?
        let metadata: JSONObject?
        let loggingData: JSONObject?
        let customData: JSONObject?

        init(
            groupIdentifier: String?, subtitle: String?, accessoryTitle: String?, descriptionText: String?,
            icon: String?, images: Images?, metadata: JSONObject?, loggingData: JSONObject?, customData: JSONObject?
        ) {
            self.groupIdentifier = groupIdentifier
            self.subtitle = subtitle
            self.accessoryTitle = accessoryTitle
            self.descriptionText = descriptionText
            self.icon = icon
            self.images = images
            self.metadata = metadata
            self.loggingData = loggingData
            self.customData = customData
        }
    }

    private final class Images: Sendable {
        let main: ComponentImageData?
        let background: ComponentImageData?
        let custom: [ComponentImageData]

        init(main: ComponentImageData?, background: ComponentImageData?, custom: [ComponentImageData]) {
            self.main = main
            self.background = background
            self.custom = custom
        }
    }

    public convenience init(
        identifier: String, type: ComponentType, index: Int = 0, indexPath: [Int] = [],
        groupIdentifier: String? = nil,
        componentIdentifier: ComponentIdentifier, componentCategory: String,
        title: String? = nil, subtitle: String? = nil, accessoryTitle: String? = nil, descriptionText: String? = nil,
        mainImageData: ComponentImageData? = nil, backgroundImageData: ComponentImageData? = nil,
        customImageData: [ComponentImageData] = [], icon: String? = nil, target: ComponentTarget? = nil,
        metadata: JSONObject? = nil, loggingData: JSONObject? = nil, customData: JSONObject? = nil,
        children: [ComponentModel] = []
    ) {
        self.init(
            identifier: identifier, type: type, index: index,
            containerPath: indexPath.count > 1 ? Array(indexPath.dropLast()) : [],
            groupIdentifier: groupIdentifier, componentIdentifier: componentIdentifier,
            componentCategory: componentCategory, title: title, subtitle: subtitle, accessoryTitle: accessoryTitle,
            descriptionText: descriptionText, mainImageData: mainImageData, backgroundImageData: backgroundImageData,
            customImageData: customImageData, icon: icon, target: target, metadata: metadata,
            loggingData: loggingData, customData: customData, children: children)
    }

    /// A component inside the container at `containerPath` (empty at the root): what builders
    /// use, so that siblings share one path.
    init(
        identifier: String, type: ComponentType, index: Int, containerPath: [Int], groupIdentifier: String?,
        componentIdentifier: ComponentIdentifier, componentCategory: String,
        title: String?, subtitle: String?, accessoryTitle: String?, descriptionText: String?,
        mainImageData: ComponentImageData?, backgroundImageData: ComponentImageData?,
        customImageData: [ComponentImageData], icon: String?, target: ComponentTarget?,
        metadata: JSONObject?, loggingData: JSONObject?, customData: JSONObject?, children: [ComponentModel]
    ) {
        self.identifier = identifier
        self.type = type
        self.storedIndex = Int32(clamping: index)
        self.containerPath = containerPath
        self.componentIdentifier = componentIdentifier
        self.componentCategory = componentCategory
        self.title = title
        self.children = children
        self.targetStorage = target.map(TargetStorage.init)
        let images = mainImageData == nil && backgroundImageData == nil && customImageData.isEmpty
            ? nil : Images(main: mainImageData, background: backgroundImageData, custom: customImageData)
        if groupIdentifier == nil, subtitle == nil, accessoryTitle == nil, descriptionText == nil, icon == nil,
            images == nil, metadata == nil, loggingData == nil, customData == nil
        {
            self.details = nil
        } else {
            self.details = Details(
                groupIdentifier: groupIdentifier, subtitle: subtitle, accessoryTitle: accessoryTitle,
                descriptionText: descriptionText, icon: icon, images: images, metadata: metadata,
                loggingData: loggingData, customData: customData)
        }
    }

    /// Position within its container after preferred-index ordering (S63).
    public var index: Int { Int(storedIndex) }
    /// Indexes from the root container down to this component (S67).
    public var indexPath: [Int] { containerPath + [index] }
    public var groupIdentifier: String? { details?.groupIdentifier }
    public var subtitle: String? { details?.subtitle }
    public var accessoryTitle: String? { details?.accessoryTitle }
    public var descriptionText: String? { details?.descriptionText }
    public var mainImageData: ComponentImageData? { details?.images?.main }
    public var backgroundImageData: ComponentImageData? { details?.images?.background }
    /// Custom images in insertion order; each carries its name as `identifier`.
    public var customImageData: [ComponentImageData] { details?.images?.custom ?? [] }
    public var icon: String? { details?.icon }
    public var target: ComponentTarget? { targetStorage?.target }
    public var metadata: JSONObject? { details?.metadata }
    public var loggingData: JSONObject? { details?.loggingData }
    public var customData: JSONObject? { details?.customData }

    /// The heap bytes of this object, its boxes and arrays (not the strings or free-form data
    /// they hold, nor the children): each allocation as malloc gives it (``MemoryEstimate``).
    var storageBytes: Int {
        // Instance sizes: 16 bytes of object header, then the stored properties in order.
        var total = MemoryEstimate.allocated(133) + MemoryEstimate.array(count: children.count, stride: 8)
        if !children.isEmpty { total += MemoryEstimate.array(count: containerPath.count + 1, stride: 8) }
        if let targetStorage {
            total += MemoryEstimate.allocated(48) + (targetStorage.rest == nil ? 0 : MemoryEstimate.allocated(48))
        }
        if let details {
            total += MemoryEstimate.allocated(176)
            if let images = details.images {
                total += MemoryEstimate.allocated(216) + MemoryEstimate.array(count: images.custom.count, stride: 96)
            }
        }
        return total
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
