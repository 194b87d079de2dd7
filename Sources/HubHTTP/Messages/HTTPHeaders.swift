import HubPrimitives

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
            // Read in place through the buffer, lengths first: a field is copied out (two
            // retains) only when it is the one, and most names are rejected by length.
            let length = name.utf8.count
            return fields.withUnsafeBufferPointer { buffer -> String? in
                for index in buffer.indices
                where buffer[index].name.utf8.count == length && buffer[index].name.asciiCaseInsensitiveEquals(name) {
                    return buffer[index].value
                }
                return nil
            }
        }
        set {
            if let newValue { replaceOrAdd(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { buffer in
            var values: [String] = []
            for index in buffer.indices
            where buffer[index].name.utf8.count == length && buffer[index].name.asciiCaseInsensitiveEquals(name) {
                values.append(buffer[index].value)
            }
            return values
        }
    }

    /// Whether a field `name` is present.
    public func contains(_ name: String) -> Bool {
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { buffer in
            buffer.indices.contains { buffer[$0].name.utf8.count == length && buffer[$0].name.asciiCaseInsensitiveEquals(name) }
        }
    }

    /// Calls `body` with each field's name and value in order, read in place (no copy of the
    /// strings per field, as iterating the fields makes).
    @inlinable
    public func forEachField(_ body: (_ name: String, _ value: String) throws -> Void) rethrows {
        try fields.withUnsafeBufferPointer { buffer in
            for index in buffer.indices { try body(buffer[index].name, buffer[index].value) }
        }
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
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { buffer in
            buffer.indices.contains {
                buffer[$0].name.utf8.count == length && buffer[$0].name.asciiCaseInsensitiveEquals(name)
                    && Self.listContains(buffer[$0].value, token)
            }
        }
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
