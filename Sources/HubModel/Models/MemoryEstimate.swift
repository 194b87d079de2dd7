/// Rough sizes of what models and builders keep on the heap, for stores bounded by bytes (the
/// session store's `maxBytes`). Counts each allocation as glibc's malloc gives it on 64-bit
/// Linux (8 bytes of header, a multiple of 16, at least 32) and strings past the 15 UTF-8 bytes
/// Swift keeps inline; an estimate, not an exact figure.
public enum MemoryEstimate {
    /// A component builder's box, with its children list and an identifier table slot.
    static let componentBuilder = 704
    /// A view model object, or a view model builder with its two lists.
    static let viewModel = allocated(112)

    /// What malloc takes for a request of `size` bytes.
    @inlinable public static func allocated(_ size: Int) -> Int {
        max(32, (size + 8 + 15) & ~15)
    }

    /// An array's buffer of `count` elements of `stride` bytes; none when empty.
    @inlinable public static func array(count: Int, stride: Int) -> Int {
        count == 0 ? 0 : allocated(32 + count * stride)
    }

    /// The heap bytes of `string`: none for up to 15 UTF-8 bytes, else a header and the bytes.
    @inlinable public static func bytes(of string: String?) -> Int {
        guard let count = string?.utf8.count, count > 15 else { return 0 }
        return allocated(32 + count + 1)
    }

    /// The heap bytes of a free-form JSON object.
    public static func bytes(of object: JSONObject?) -> Int {
        guard let object else { return 0 }
        var total = array(count: object.count, stride: 16) + array(count: object.count, stride: 9)
        for (key, value) in object { total += bytes(of: key) + bytes(of: value) }
        return total
    }

    static func bytes(of value: JSONValue) -> Int {
        switch value {
        case .string(let string): return bytes(of: string)
        case .array(let values): return values.reduce(array(count: values.count, stride: 16)) { $0 + bytes(of: $1) }
        case .object(let object): return allocated(16 + 24) + bytes(of: object)
        default: return 0
        }
    }

    static func bytes(of identifier: ComponentIdentifier) -> Int {
        bytes(of: identifier.namespace) + bytes(of: identifier.name)
    }

    static func bytes(of image: ComponentImageData?) -> Int {
        guard let image else { return 0 }
        return bytes(of: image.uri) + bytes(of: image.placeholder) + bytes(of: image.localImageName)
            + bytes(of: image.identifier) + bytes(of: image.customData)
    }

    /// The heap bytes of `target`'s strings, actions and initial view (not its box).
    static func contents(of target: ComponentTarget) -> Int {
        var total = bytes(of: target.uri) + bytes(of: target.customData)
            + array(count: target.actionIdentifiers.count, stride: 32) + (target.initialViewModel?.estimatedMemoryBytes ?? 0)
        for action in target.actionIdentifiers { total += bytes(of: action) }
        return total
    }
}

/// The fields a component model and its builder both keep: their strings and free-form data
/// are counted the same way for both.
protocol ComponentFields {
    var identifier: String { get }
    var groupIdentifier: String? { get }
    var componentIdentifier: ComponentIdentifier { get }
    var componentCategory: String { get }
    var title: String? { get }
    var subtitle: String? { get }
    var accessoryTitle: String? { get }
    var descriptionText: String? { get }
    var icon: String? { get }
    var metadata: JSONObject? { get }
    var loggingData: JSONObject? { get }
    var customData: JSONObject? { get }
}

extension ComponentFields {
    /// The heap bytes of the strings and free-form data of these fields.
    var fieldBytes: Int {
        MemoryEstimate.bytes(of: identifier) + MemoryEstimate.bytes(of: groupIdentifier)
            + MemoryEstimate.bytes(of: componentIdentifier) + MemoryEstimate.bytes(of: componentCategory)
            + MemoryEstimate.bytes(of: title) + MemoryEstimate.bytes(of: subtitle)
            + MemoryEstimate.bytes(of: accessoryTitle) + MemoryEstimate.bytes(of: descriptionText)
            + MemoryEstimate.bytes(of: icon) + MemoryEstimate.bytes(of: metadata)
            + MemoryEstimate.bytes(of: loggingData) + MemoryEstimate.bytes(of: customData)
    }
}

extension ComponentModel: ComponentFields {}
extension ComponentModelBuilder: ComponentFields {}

extension ViewModel {
    /// About the bytes this view model keeps on the heap (``MemoryEstimate``): a compact one its
    /// object and JSON bytes, a built one its components too.
    public var estimatedMemoryBytes: Int {
        if let bytes = compactBytes { return MemoryEstimate.viewModel + MemoryEstimate.array(count: bytes.count, stride: 1) }
        var total = MemoryEstimate.viewModel + MemoryEstimate.bytes(of: identifier) + MemoryEstimate.bytes(of: title)
            + MemoryEstimate.bytes(of: customData)
        total += header?.estimatedMemoryBytes ?? 0
        for list in [body, overlays] {
            total += MemoryEstimate.array(count: list.count, stride: 8)
            for component in list { total += component.estimatedMemoryBytes }
        }
        return total
    }
}

extension ComponentModel {
    /// About the bytes this component and its children keep on the heap.
    public var estimatedMemoryBytes: Int {
        var total = storageBytes + fieldBytes
        for image in [mainImageData, backgroundImageData] { total += MemoryEstimate.bytes(of: image) }
        for image in customImageData { total += MemoryEstimate.bytes(of: image) }
        if let target { total += MemoryEstimate.contents(of: target) }
        for child in children { total += child.estimatedMemoryBytes }
        return total
    }
}

extension ViewModelBuilder {
    /// About the bytes this builder keeps on the heap that no other builder shares (a snapshot
    /// shares the boxes of components it did not change; this counts them all).
    public var estimatedMemoryBytes: Int {
        var total = MemoryEstimate.viewModel + MemoryEstimate.bytes(of: identifier) + MemoryEstimate.bytes(of: title)
            + MemoryEstimate.bytes(of: customData)
        for builder in allComponentBuilders { total += builder.estimatedMemoryBytes }
        return total
    }
}

extension ComponentModelBuilder {
    /// About the bytes this builder and its children keep on the heap.
    public var estimatedMemoryBytes: Int {
        var total = MemoryEstimate.componentBuilder + fieldBytes
        if let target {
            total += 96 + MemoryEstimate.bytes(of: target.uri) + MemoryEstimate.bytes(of: target.customData)
                + (target.initialViewModel?.estimatedMemoryBytes ?? 0)
                + MemoryEstimate.array(count: target.actionIdentifiers.count, stride: 32)
            for action in target.actionIdentifiers { total += MemoryEstimate.bytes(of: action) }
        }
        for child in children { total += child.estimatedMemoryBytes }
        return total
    }
}
