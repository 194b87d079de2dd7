/// Builds one ``ComponentModel``: a value type whose copies are snapshots (S61, S78).
///
/// The fields live in one heap box shared by copies until one of them writes, so copying a
/// view model builder with sixty components copies sixty pointers, and a snapshot shares
/// every component an operation did not touch.
public struct ComponentModelBuilder: Sendable {
    @usableFromInline struct Fields: Sendable {
        var identifier: String
        var type: ComponentType
        var defaults: ComponentDefaults
        var preferredIndex: Int?
        var groupIdentifier: String?
        var componentNamespace: String
        var componentName: String
        var componentCategory: String
        var title: String?
        var subtitle: String?
        var accessoryTitle: String?
        var descriptionText: String?
        var mainImage = ComponentImageDataBuilder()
        var backgroundImage = ComponentImageDataBuilder()
        var customImageNames: [String] = []
        var customImages: [String: ComponentImageDataBuilder] = [:]
        var icon: String?
        var target: ComponentTargetBuilder?
        var metadata: JSONObject?
        var loggingData: JSONObject?
        var customData: JSONObject?
        var children: ComponentBuilderList
    }

    @usableFromInline var box: CopyOnWriteBox<Fields>

    /// A builder with the component defaults (S68): namespace, name and category from
    /// `defaults`, everything else empty.
    public init(identifier: String, type: ComponentType, defaults: ComponentDefaults = .standard) {
        box = CopyOnWriteBox(
            Fields(
                identifier: identifier, type: type, defaults: defaults,
                componentNamespace: defaults.namespace, componentName: defaults.name,
                componentCategory: defaults.category,
                children: ComponentBuilderList(type: type, defaults: defaults, generatedPrefix: identifier)))
    }

    @inline(__always) @usableFromInline mutating func mutate<R>(_ update: (inout Fields) throws -> R) rethrows -> R {
        if !isKnownUniquelyReferenced(&box) { box = CopyOnWriteBox(box.value) }
        return try update(&box.value)
    }

    /// Makes this builder the one a container stores under `identifier` with `type`: a no-op
    /// unless someone stored a builder under another key or in another container.
    @inline(__always) @usableFromInline mutating func adopt(identifier: String, type: ComponentType) {
        guard box.value.identifier != identifier || box.value.type != type else { return }
        mutate { fields in
            fields.identifier = identifier
            if fields.type != type {
                fields.type = type
                fields.children = fields.children.retyped(type)
            }
        }
    }

    /// The identifier; it never changes once the builder exists (S33).
    public var identifier: String { box.value.identifier }
    /// The component type, decided by the container (S68, S72).
    public var type: ComponentType { box.value.type }
    /// The defaults this builder (and its children) started with.
    public var defaults: ComponentDefaults { box.value.defaults }

    /// Where the component should go in its container when built (S63..S66).
    public var preferredIndex: Int? {
        get { box.value.preferredIndex }
        set { mutate { $0.preferredIndex = newValue } }
    }
    public var groupIdentifier: String? {
        get { box.value.groupIdentifier }
        set { mutate { $0.groupIdentifier = newValue } }
    }
    public var componentNamespace: String {
        get { box.value.componentNamespace }
        set { mutate { $0.componentNamespace = newValue } }
    }
    public var componentName: String {
        get { box.value.componentName }
        set { mutate { $0.componentName = newValue } }
    }
    /// `namespace:name` of the component implementation.
    public var componentIdentifier: ComponentIdentifier {
        get { ComponentIdentifier(namespace: box.value.componentNamespace, name: box.value.componentName) }
        set {
            mutate {
                $0.componentNamespace = newValue.namespace
                $0.componentName = newValue.name
            }
        }
    }
    public var componentCategory: String {
        get { box.value.componentCategory }
        set { mutate { $0.componentCategory = newValue } }
    }
    public var title: String? {
        get { box.value.title }
        set { mutate { $0.title = newValue } }
    }
    public var subtitle: String? {
        get { box.value.subtitle }
        set { mutate { $0.subtitle = newValue } }
    }
    public var accessoryTitle: String? {
        get { box.value.accessoryTitle }
        set { mutate { $0.accessoryTitle = newValue } }
    }
    public var descriptionText: String? {
        get { box.value.descriptionText }
        set { mutate { $0.descriptionText = newValue } }
    }
    /// The main image (type `main`, S69).
    public var mainImage: ComponentImageDataBuilder {
        get { box.value.mainImage }
        set { mutate { $0.mainImage = newValue } }
    }
    /// The background image (type `background`, S69).
    public var backgroundImage: ComponentImageDataBuilder {
        get { box.value.backgroundImage }
        set { mutate { $0.backgroundImage = newValue } }
    }
    /// Convenience for `mainImage.uri` (S69).
    public var mainImageURI: String? {
        get { box.value.mainImage.uri }
        set { mutate { $0.mainImage.uri = newValue } }
    }
    /// Convenience for `backgroundImage.uri` (S69).
    public var backgroundImageURI: String? {
        get { box.value.backgroundImage.uri }
        set { mutate { $0.backgroundImage.uri = newValue } }
    }
    /// Icon identifier; kept without a resolver (DESIGN.md).
    public var icon: String? {
        get { box.value.icon }
        set { mutate { $0.icon = newValue } }
    }
    /// The target; `nil` until set or created by ``withTarget(_:)`` (S20).
    public var target: ComponentTargetBuilder? {
        get { box.value.target }
        set { mutate { $0.target = newValue } }
    }
    public var metadata: JSONObject? {
        get { box.value.metadata }
        set { mutate { $0.metadata = newValue } }
    }
    public var loggingData: JSONObject? {
        get { box.value.loggingData }
        set { mutate { $0.loggingData = newValue } }
    }
    public var customData: JSONObject? {
        get { box.value.customData }
        set { mutate { $0.customData = newValue } }
    }
    /// Child builders, keyed by identifier in creation order (S71..S77).
    public var children: ComponentBuilderList {
        get { box.value.children }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = CopyOnWriteBox(box.value) }
            yield &box.value.children
        }
    }

    /// Mutates the target, creating an empty one when absent (S20).
    public mutating func withTarget<R>(_ update: (inout ComponentTargetBuilder) throws -> R) rethrows -> R {
        try mutate { fields in
            var target = fields.target ?? ComponentTargetBuilder()
            fields.target = nil
            defer { fields.target = target }
            return try update(&target)
        }
    }

    /// Names of the custom images, in creation order.
    public var customImageNames: [String] { box.value.customImageNames }

    /// The custom image builder with this name, created on write (S70).
    public subscript(customImage name: String) -> ComponentImageDataBuilder {
        get { box.value.customImages[name] ?? ComponentImageDataBuilder() }
        set {
            mutate { fields in
                if fields.customImages.updateValue(newValue, forKey: name) == nil {
                    fields.customImageNames.append(name)
                }
            }
        }
    }

    /// Removes the custom image with this name.
    public mutating func removeCustomImage(named name: String) {
        mutate { fields in
            if fields.customImages.removeValue(forKey: name) != nil {
                fields.customImageNames.removeAll { $0 == name }
            }
        }
    }

    /// Sets one key of `customData`; `nil` removes it (S49 for components).
    public mutating func setCustomDataValue(_ value: JSONValue?, forKey key: String) {
        mutate { fields in
            var custom = fields.customData ?? JSONObject()
            custom[key] = value
            fields.customData = custom
        }
    }

    /// Builds the model at `index` inside a container whose path is `parentPath`.
    public func build(index: Int = 0, parentPath: [Int] = []) -> ComponentModel {
        let fields = box.value
        var customImages: [ComponentImageData] = []
        for name in fields.customImageNames {
            if let image = fields.customImages[name]?.build(type: .custom, identifier: name) {
                customImages.append(image)
            }
        }
        return ComponentModel(
            identifier: fields.identifier, type: fields.type, index: index, containerPath: parentPath,
            groupIdentifier: fields.groupIdentifier,
            componentIdentifier: ComponentIdentifier(namespace: fields.componentNamespace, name: fields.componentName),
            componentCategory: fields.componentCategory,
            title: fields.title, subtitle: fields.subtitle, accessoryTitle: fields.accessoryTitle,
            descriptionText: fields.descriptionText,
            mainImageData: fields.mainImage.build(type: .main),
            backgroundImageData: fields.backgroundImage.build(type: .background),
            customImageData: customImages, icon: fields.icon, target: fields.target?.build(),
            metadata: fields.metadata.nonEmpty, loggingData: fields.loggingData.nonEmpty, customData: fields.customData.nonEmpty,
            // The children share one path, made only for a component that has children.
            children: fields.children.isEmpty ? [] : fields.children.build(parentPath: parentPath + [index]))
    }
}

extension Optional where Wrapped == JSONObject {
    /// `nil` for an empty dictionary: models hold what serialization writes, so a `{}` that is
    /// never written (DESIGN.md) cannot make two models unequal (S81, S173).
    @inline(__always) var nonEmpty: JSONObject? {
        guard let object = self, !object.isEmpty else { return nil }
        return object
    }
}
