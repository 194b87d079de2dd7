/// Rough sizes of what models and builders keep on the heap, for stores bounded by bytes (the
/// session store's `maxBytes`). Counts objects at their allocated size on 64-bit Linux and
/// strings past the 15 UTF-8 bytes Swift keeps inline; an estimate, not an exact figure.
public enum MemoryEstimate {
    /// A component model object with its index path.
    static let componentModel = 528
    /// A component builder's box, with its children list and an identifier table slot.
    static let componentBuilder = 704
    /// A view model object, or a view model builder with its two lists.
    static let viewModel = 128

    /// The heap bytes of `string`: none for up to 15 UTF-8 bytes, else a header and the bytes.
    @inlinable public static func bytes(of string: String?) -> Int {
        guard let count = string?.utf8.count, count > 15 else { return 0 }
        return 32 + (count + 15) & ~15
    }

    /// The heap bytes of a free-form JSON object.
    public static func bytes(of object: JSONObject?) -> Int {
        guard let object else { return 0 }
        var total = 64
        for (key, value) in object { total += 32 + bytes(of: key) + bytes(of: value) }
        return total
    }

    static func bytes(of value: JSONValue) -> Int {
        switch value {
        case .string(let string): return bytes(of: string)
        case .array(let values): return values.reduce(32 + 16 * values.count) { $0 + bytes(of: $1) }
        case .object(let object): return bytes(of: object)
        default: return 0
        }
    }

    static func bytes(of identifier: ComponentIdentifier) -> Int {
        bytes(of: identifier.namespace) + bytes(of: identifier.name)
    }
}

extension ViewModel {
    /// About the bytes this view model keeps on the heap (``MemoryEstimate``).
    public var estimatedMemoryBytes: Int {
        var total = MemoryEstimate.viewModel + MemoryEstimate.bytes(of: identifier) + MemoryEstimate.bytes(of: title)
            + MemoryEstimate.bytes(of: customData)
        if let header { total += header.estimatedMemoryBytes }
        for component in body { total += component.estimatedMemoryBytes }
        for component in overlays { total += component.estimatedMemoryBytes }
        return total
    }
}

extension ComponentModel {
    /// About the bytes this component and its children keep on the heap.
    public var estimatedMemoryBytes: Int {
        var total = MemoryEstimate.componentModel + MemoryEstimate.bytes(of: identifier)
            + MemoryEstimate.bytes(of: groupIdentifier) + MemoryEstimate.bytes(of: componentIdentifier)
            + MemoryEstimate.bytes(of: componentCategory) + MemoryEstimate.bytes(of: title)
            + MemoryEstimate.bytes(of: subtitle) + MemoryEstimate.bytes(of: accessoryTitle)
            + MemoryEstimate.bytes(of: descriptionText) + MemoryEstimate.bytes(of: icon)
            + MemoryEstimate.bytes(of: metadata) + MemoryEstimate.bytes(of: loggingData)
            + MemoryEstimate.bytes(of: customData)
        for image in [mainImageData, backgroundImageData].compactMap({ $0 }) + customImageData {
            total += 32 + MemoryEstimate.bytes(of: image.uri) + MemoryEstimate.bytes(of: image.placeholder)
                + MemoryEstimate.bytes(of: image.localImageName) + MemoryEstimate.bytes(of: image.customData)
        }
        if let target {
            total += 48 + MemoryEstimate.bytes(of: target.uri) + MemoryEstimate.bytes(of: target.customData)
                + (target.initialViewModel?.estimatedMemoryBytes ?? 0)
            for action in target.actionIdentifiers { total += 32 + MemoryEstimate.bytes(of: action) }
        }
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
        var total = MemoryEstimate.componentBuilder + MemoryEstimate.bytes(of: identifier)
            + MemoryEstimate.bytes(of: groupIdentifier) + MemoryEstimate.bytes(of: componentIdentifier)
            + MemoryEstimate.bytes(of: componentCategory) + MemoryEstimate.bytes(of: title)
            + MemoryEstimate.bytes(of: subtitle) + MemoryEstimate.bytes(of: accessoryTitle)
            + MemoryEstimate.bytes(of: descriptionText) + MemoryEstimate.bytes(of: icon)
            + MemoryEstimate.bytes(of: metadata) + MemoryEstimate.bytes(of: loggingData)
            + MemoryEstimate.bytes(of: customData)
        if let target {
            total += 96 + MemoryEstimate.bytes(of: target.uri) + MemoryEstimate.bytes(of: target.customData)
                + (target.initialViewModel?.estimatedMemoryBytes ?? 0)
            for action in target.actionIdentifiers { total += 32 + MemoryEstimate.bytes(of: action) }
        }
        for child in children { total += child.estimatedMemoryBytes }
        return total
    }
}
