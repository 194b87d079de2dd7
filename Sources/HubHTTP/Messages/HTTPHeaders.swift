import HubPrimitives

/// Header fields as an ordered list of `(name, value)` pairs. Duplicates are kept in order;
/// lookups compare names case-insensitively (ASCII), as RFC 9110 section 5.1 requires.
///
/// A parsed request's fields are read in place from the bytes received (``ReceivedFields``):
/// a value becomes a `String` only when it is looked up, and the first change turns them into
/// the list that constructed headers (a response's) keep.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Field = (name: String, value: String)

    /// The fields added or constructed (a response's), or received ones once changed; empty
    /// while ``received`` holds them.
    private var list: [Field]
    /// A parsed request's fields, read in place until they are first changed. Every operation
    /// on a list checks only that this is nil: the list path costs what it did before.
    private var received: ReceivedFields?

    /// The fields in the order they were added or received.
    public var fields: [Field] { received?.fields ?? list }

    public init() { list = [] }

    public init(_ fields: [Field]) { list = fields }

    /// `fields`, with room for `capacity` fields in all (no reallocation as they are added).
    public init(_ fields: [Field], reservingCapacity capacity: Int) {
        var reserved: [Field] = []
        reserved.reserveCapacity(Swift.max(capacity, fields.count))
        reserved.append(contentsOf: fields)
        list = reserved
    }

    /// The fields of a parsed request, read in place.
    init(received: ReceivedFields) {
        list = []
        self.received = received
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        list = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { received?.count ?? list.count }

    public var isEmpty: Bool { count == 0 }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of the field `name`, or nil; setting replaces every field of that name
    /// (or removes them all when set to nil).
    public subscript(name: String) -> String? {
        get {
            if let received {
                var first: String?
                received.forEachValue(named: name) { value in
                    first = value
                    return false
                }
                return first
            }
            // Read in place through the buffer, lengths first: a field is copied out (two
            // retains) only when it is the one, and most names are rejected by length.
            let length = name.utf8.count
            return list.withUnsafeBufferPointer { buffer -> String? in
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
        var values: [String] = []
        forEachValue(named: name) { value in
            values.append(value)
            return true
        }
        return values
    }

    /// Calls `body` with each value of the field `name` in order, until it returns false. Only
    /// those values are copied or made (a received field's value becomes a string here).
    public func forEachValue(named name: String, _ body: (String) throws -> Bool) rethrows {
        if let received {
            try received.forEachValue(named: name, body)
            return
        }
        let length = name.utf8.count
        try list.withUnsafeBufferPointer { buffer in
            for index in buffer.indices
            where buffer[index].name.utf8.count == length && buffer[index].name.asciiCaseInsensitiveEquals(name) {
                if try !body(buffer[index].value) { return }
            }
        }
    }

    /// Whether a field `name` is present.
    public func contains(_ name: String) -> Bool {
        if let received { return received.contains(name) }
        let length = name.utf8.count
        return list.withUnsafeBufferPointer { buffer in
            buffer.indices.contains { buffer[$0].name.utf8.count == length && buffer[$0].name.asciiCaseInsensitiveEquals(name) }
        }
    }

    /// Calls `body` with each field's name and value in order (for a list of fields, read in
    /// place: no copy of the strings per field, as iterating the fields makes).
    public func forEachField(_ body: (_ name: String, _ value: String) throws -> Void) rethrows {
        if let received {
            try received.forEachField { name, value in try body(name, value()) }
            return
        }
        try list.withUnsafeBufferPointer { buffer in
            for index in buffer.indices { try body(buffer[index].name, buffer[index].value) }
        }
    }

    /// Calls `body` with each field's name in order and a function that gives its value: a
    /// received field's value becomes a string only when `body` asks for it (a filter that
    /// keeps a few named fields makes no string for the others' values).
    public func forEachField(lazily body: (_ name: String, _ value: () -> String) throws -> Void) rethrows {
        if let received {
            try received.forEachField(body)
            return
        }
        try list.withUnsafeBufferPointer { buffer in
            for index in buffer.indices { try body(buffer[index].name) { buffer[index].value } }
        }
    }

    /// Turns received fields into the list, before the first change.
    private mutating func makeList() {
        guard let received else { return }
        list = received.fields
        self.received = nil
    }

    /// Appends a field, keeping any existing one of the same name.
    public mutating func add(name: String, value: String) {
        if received != nil { makeList() }
        list.append((name: name, value: value))
    }

    /// Replaces the first field `name` and removes the others, or appends it when absent.
    public mutating func replaceOrAdd(name: String, value: String) {
        if received != nil { makeList() }
        guard let first = list.firstIndex(where: { $0.name.asciiCaseInsensitiveEquals(name) }) else {
            list.append((name: name, value: value))
            return
        }
        list[first].value = value
        var index = list.index(after: first)
        while index < list.endIndex {
            if list[index].name.asciiCaseInsensitiveEquals(name) { list.remove(at: index) } else { index += 1 }
        }
    }

    /// Removes every field `name`.
    public mutating func remove(name: String) {
        if received != nil { makeList() }
        list.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
    }

    /// Whether a comma-separated list field (such as `Connection`) contains `token` (case-insensitive).
    public func containsToken(_ token: String, in name: String) -> Bool {
        var found = false
        forEachValue(named: name) { value in
            found = Self.listContains(value, token)
            return !found
        }
        return found
    }

    /// Whether the comma-separated list `value` has `token` as an element (ASCII case-insensitive).
    /// Read in place (no array of items): `Connection` is checked on every request.
    public static func listContains(_ value: String, _ token: String) -> Bool {
        var value = value
        var token = token
        return value.withUTF8 { bytes in
            token.withUTF8 { wanted in
                var start = 0
                while start < bytes.count {
                    let end = ByteScan.index(of: UInt8(ascii: ","), in: bytes, from: start) ?? bytes.count
                    // Empty items (`a,,b`) are skipped; OWS around an item is not part of it.
                    var first = start
                    var last = end
                    while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
                    while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
                    if end > start, ASCII.caseInsensitiveEquals(UnsafeBufferPointer(rebasing: bytes[first..<last]), wanted) {
                        return true
                    }
                    start = end + 1
                }
                return false
            }
        }
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
