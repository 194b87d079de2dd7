/// An ordered set of component builders keyed by identifier: body, overlays or children.
///
/// Elements iterate in creation order (S56); ``build(parentPath:)`` applies preferred
/// indexes (S63..S66). Reading ``subscript(_:)`` for a missing identifier returns a fresh
/// builder without inserting it; writing through it inserts (get-or-create, S53, S71).
public struct ComponentBuilderList: Sendable, RandomAccessCollection {
    @usableFromInline var elements: [ComponentModelBuilder] = []
    @usableFromInline var positions: [String: Int] = [:]
    /// The type of the components this list creates.
    public let type: ComponentType
    /// The defaults of the components this list creates.
    public let defaults: ComponentDefaults
    /// Prefix of generated identifiers, unique per container.
    @usableFromInline let generatedPrefix: String
    /// How many identifiers this list has generated; never decreases.
    @usableFromInline var generatedCount = 0

    public init(type: ComponentType, defaults: ComponentDefaults = .standard, generatedPrefix: String? = nil) {
        self.type = type
        self.defaults = defaults
        self.generatedPrefix = generatedPrefix ?? type.rawValue
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public subscript(position: Int) -> ComponentModelBuilder { elements[position] }

    /// Identifiers in creation order.
    public var identifiers: [String] { elements.map(\.identifier) }

    /// `true` when a builder with this identifier exists; never creates one (S53).
    public func contains(_ identifier: String) -> Bool {
        positions[identifier] != nil
    }

    /// The builder with this identifier. Get returns a fresh, uninserted builder when absent;
    /// set and in-place mutation create it at the end when absent (S53).
    public subscript(identifier: String) -> ComponentModelBuilder {
        get {
            if let position = positions[identifier] { return elements[position] }
            return ComponentModelBuilder(identifier: identifier, type: type, defaults: defaults)
        }
        set {
            // The key is the identity: a builder stored under another key takes that key's
            // identifier and this list's type, so ids stay unique and lookups stay right.
            var builder = newValue
            builder.adopt(identifier: identifier, type: type)
            if let position = positions[identifier] {
                elements[position] = builder
            } else {
                positions[identifier] = elements.count
                elements.append(builder)
            }
        }
        _modify {
            let position = insertIfMissing(identifier)
            defer { elements[position].adopt(identifier: identifier, type: type) }
            yield &elements[position]
        }
    }

    /// Position of the builder with `identifier`, creating it first when absent.
    @usableFromInline mutating func insertIfMissing(_ identifier: String) -> Int {
        if let position = positions[identifier] { return position }
        let position = elements.count
        elements.append(ComponentModelBuilder(identifier: identifier, type: type, defaults: defaults))
        positions[identifier] = position
        return position
    }

    /// Mutates the builder with `identifier`, creating it at the end when absent.
    @discardableResult
    public mutating func update<R>(_ identifier: String, _ body: (inout ComponentModelBuilder) throws -> R) rethrows -> R {
        let position = insertIfMissing(identifier)
        defer { elements[position].adopt(identifier: identifier, type: type) }
        return try body(&elements[position])
    }

    /// A new, deterministic identifier for a component that has none (S16 with DESIGN.md's
    /// decision: stable across runs of the same chain, never random).
    public mutating func makeGeneratedIdentifier() -> String {
        while true {
            let candidate = "UnknownComponent:\(generatedPrefix).\(generatedCount)"
            generatedCount += 1
            if positions[candidate] == nil { return candidate }
        }
    }

    /// Creates a builder with a generated identifier and mutates it.
    @discardableResult
    public mutating func appendGenerated<R>(_ body: (inout ComponentModelBuilder) throws -> R) rethrows -> R {
        try update(makeGeneratedIdentifier(), body)
    }

    /// Removes the builder with this identifier; unknown identifiers are a no-op (S54).
    public mutating func remove(_ identifier: String) {
        guard let position = positions.removeValue(forKey: identifier) else { return }
        elements.remove(at: position)
        for index in position..<elements.count {
            positions[elements[index].identifier] = index
        }
    }

    /// This list with every builder (and, through them, every descendant) of `newType` (S72).
    func retyped(_ newType: ComponentType) -> ComponentBuilderList {
        var list = ComponentBuilderList(type: newType, defaults: defaults, generatedPrefix: generatedPrefix)
        list.elements = elements.map { builder in
            var builder = builder
            builder.adopt(identifier: builder.identifier, type: newType)
            return builder
        }
        list.positions = positions
        list.generatedCount = generatedCount
        return list
    }

    /// Removes every builder (S58, S74).
    public mutating func removeAll() {
        elements.removeAll()
        positions.removeAll()
    }

    /// The builders whose group is `group`, in creation order; `nil` when none (S76, S77).
    public func builders(inGroup group: String) -> [ComponentModelBuilder]? {
        let members = elements.filter { $0.groupIdentifier == group }
        return members.isEmpty ? nil : members
    }

    /// Creation order with preferred indexes applied: each builder with a preferred index,
    /// in ascending order (ties in creation order), is removed and re-inserted at that index,
    /// or appended when the index is past the end (S63..S66).
    public func orderedBuilders() -> [ComponentModelBuilder] {
        var ordered = elements
        let preferred = elements.indices
            .compactMap { index in elements[index].preferredIndex.map { (index: index, preferred: $0) } }
            .sorted { $0.preferred != $1.preferred ? $0.preferred < $1.preferred : $0.index < $1.index }
        guard !preferred.isEmpty else { return ordered }
        for entry in preferred {
            let identifier = elements[entry.index].identifier
            guard let current = ordered.firstIndex(where: { $0.identifier == identifier }) else { continue }
            let builder = ordered.remove(at: current)
            if entry.preferred >= 0 && entry.preferred < ordered.count {
                ordered.insert(builder, at: entry.preferred)
            } else {
                ordered.append(builder)
            }
        }
        return ordered
    }

    /// Builds the models in their final order, each with its index (S63).
    public func build(parentPath: [Int] = []) -> [ComponentModel] {
        guard !elements.isEmpty else { return [] }
        return orderedBuilders().enumerated().map { index, builder in
            builder.build(index: index, parentPath: parentPath)
        }
    }
}
