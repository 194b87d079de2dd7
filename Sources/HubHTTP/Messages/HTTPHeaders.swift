import HubSync

/// Header fields as an ordered list of `(name, value)` pairs. Duplicates are kept in order;
/// lookups compare names case-insensitively (ASCII), as RFC 9110 section 5.1 requires.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Field = (name: String, value: String)

    /// The fields in the order they were added or received.
    public private(set) var fields: [Field]

    public init() { fields = [] }

    public init(_ fields: [Field]) { self.fields = fields }

    /// `fields`, with room for `capacity` fields in all (no reallocation as they are added).
    public init(_ fields: [Field], reservingCapacity capacity: Int) {
        var reserved: [Field] = []
        reserved.reserveCapacity(Swift.max(capacity, fields.count))
        reserved.append(contentsOf: fields)
        self.fields = reserved
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of the field `name`, or nil; setting replaces every field of that name
    /// (or removes them all when set to nil).
    public subscript(name: String) -> String? {
        get {
            // By index: the fields are read in place, not copied out (two retains each).
            for index in fields.indices where fields[index].name.asciiCaseInsensitiveEquals(name) { return fields[index].value }
            return nil
        }
        set {
            if let newValue { replaceOrAdd(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.lazy.filter { $0.name.asciiCaseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether a field `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.asciiCaseInsensitiveEquals(name) }
    }

    /// Appends a field, keeping any existing one of the same name.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces the first field `name` and removes the others, or appends it when absent.
    public mutating func replaceOrAdd(name: String, value: String) {
        guard let first = fields.firstIndex(where: { $0.name.asciiCaseInsensitiveEquals(name) }) else {
            fields.append((name: name, value: value))
            return
        }
        fields[first].value = value
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if fields[index].name.asciiCaseInsensitiveEquals(name) { fields.remove(at: index) } else { index += 1 }
        }
    }

    /// Removes every field `name`.
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
    }

    /// Whether a comma-separated list field (such as `Connection`) contains `token` (case-insensitive).
    public func containsToken(_ token: String, in name: String) -> Bool {
        for field in fields where field.name.asciiCaseInsensitiveEquals(name) && Self.listContains(field.value, token) {
            return true
        }
        return false
    }

    /// Whether the comma-separated list `value` has `token` as an element (ASCII case-insensitive).
    public static func listContains(_ value: String, _ token: String) -> Bool {
        for item in value.split(separator: ",") where item.trimmingOWS().asciiCaseInsensitiveEquals(token) {
            return true
        }
        return false
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
