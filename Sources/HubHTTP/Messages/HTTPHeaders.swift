import HubPrimitives

/// Header fields as an ordered list of `(name, value)` pairs. Duplicates are kept in order;
/// lookups compare names case-insensitively (ASCII), as RFC 9110 section 5.1 requires.
///
/// A parsed request's fields are read in place from the bytes received (``ReceivedFields``):
/// a value becomes a `String` only when it is looked up, and the first change turns them into
/// the list that constructed headers (a response's) keep. A response that only adds fields can
/// keep them as bytes instead (``init(writingCapacity:)``, ``WrittenFields``: a view's).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Field = (name: String, value: String)

    /// One of the three representations, one word wide (each case is one reference).
    private enum Storage: Sendable {
        /// Fields added or constructed (a response's), or received ones once changed.
        case list([Field])
        /// A parsed request's fields, read in place until they are first changed.
        case received(ReceivedFields)
        /// Fields written as bytes as they are added (``init(writingCapacity:)``), until a field
        /// is replaced or removed.
        case written(WrittenFields)
    }

    private var storage: Storage

    /// The fields in the order they were added or received.
    public var fields: [Field] {
        switch storage {
        case .list(let list): list
        case .received(let received): received.fields
        case .written(let written): written.fields
        }
    }

    public init() { storage = .list([]) }

    /// No fields yet, kept as bytes as they are added, with room for about `bytes` of names and
    /// values: for a response whose fields are added and read but not replaced, each name and
    /// value is copied once and the head is written from those bytes in place (no reference
    /// count per field for the head's loop, its copies and its destruction). Replacing or
    /// removing a field turns them into a list.
    public init(writingCapacity bytes: Int) { storage = .written(WrittenFields(reservingCapacity: bytes)) }

    public init(_ fields: [Field]) { storage = .list(fields) }

    /// `fields`, with room for `capacity` fields in all (no reallocation as they are added).
    public init(_ fields: [Field], reservingCapacity capacity: Int) {
        var reserved: [Field] = []
        reserved.reserveCapacity(Swift.max(capacity, fields.count))
        reserved.append(contentsOf: fields)
        storage = .list(reserved)
    }

    /// The fields of a parsed request, read in place.
    init(received: ReceivedFields) {
        storage = .received(received)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        storage = .list(elements.map { (name: $0.0, value: $0.1) })
    }

    public var count: Int {
        switch storage {
        case .list(let list): list.count
        case .received(let received): received.count
        case .written(let written): written.count
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// The fields as the parser received them, while they are unchanged (``ReceivedLines``).
    var received: ReceivedFields? {
        if case .received(let received) = storage { received } else { nil }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of the field `name`, or nil; setting replaces every field of that name
    /// (or removes them all when set to nil).
    public subscript(name: String) -> String? {
        get {
            switch storage {
            case .list(let list):
                return list.withUnsafeBufferPointer { buffer in
                    Self.index(of: name, in: buffer, from: 0).map { buffer[$0].value }
                }
            case .received, .written:
                var first: String?
                forEachValueBytes(named: name) { value in
                    first = String(decoding: value, as: UTF8.self)
                    return false
                }
                return first
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
        switch storage {
        case .list(let list):
            try list.withUnsafeBufferPointer { buffer in
                var next = 0
                while let index = Self.index(of: name, in: buffer, from: next) {
                    if try !body(buffer[index].value) { return }
                    next = index + 1
                }
            }
        case .received(let received):
            try received.forEachValue(named: name, body)
        case .written(let written):
            try written.forEachValueBytes(named: name) { value in try body(String(decoding: value, as: UTF8.self)) }
        }
    }

    /// Calls `body` with the UTF-8 bytes of each value of the field `name` in order, until it
    /// returns false, read in place: no string is made. The bytes are valid only inside `body`.
    public func forEachValueBytes(named name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows {
        switch storage {
        case .list(let list):
            try list.withUnsafeBufferPointer { buffer in
                var next = 0
                while let index = Self.index(of: name, in: buffer, from: next) {
                    if try !ASCII.withUTF8(of: buffer[index].value, body) { return }
                    next = index + 1
                }
            }
        case .received(let received):
            try received.forEachValueBytes(named: name, body)
        case .written(let written):
            try written.forEachValueBytes(named: name, body)
        }
    }

    /// Calls `body` with the UTF-8 bytes of the first value of the field `name`, or with nil
    /// when there is none, read in place: no string is made (a received value has none until
    /// asked for). The bytes are valid only inside `body`.
    ///
    /// Not generic: `body` hands its result out through a capture. A generic result made every
    /// call from another module (unspecialized) look its `Optional` metadata up at run time.
    public func withFirstValueBytes(named name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> Void) rethrows {
        var found = false
        try forEachValueBytes(named: name) { value in
            found = true
            try body(value)
            return false
        }
        if !found { try body(nil) }
    }

    /// Whether a field `name` is present.
    public func contains(_ name: String) -> Bool {
        switch storage {
        case .list(let list):
            return list.withUnsafeBufferPointer { buffer in Self.index(of: name, in: buffer, from: 0) != nil }
        case .received, .written:
            var found = false
            forEachValueBytes(named: name) { _ in
                found = true
                return false
            }
            return found
        }
    }

    /// The bytes the fields take as `name: value` lines (`: ` and CRLF included), counted in
    /// place: no string is copied.
    var encodedFieldBytes: Int {
        switch storage {
        case .list(let list):
            list.withUnsafeBufferPointer { buffer in
                var total = 0
                for index in buffer.indices { total += buffer[index].name.utf8.count + buffer[index].value.utf8.count + 4 }
                return total
            }
        case .received(let received):
            received.encodedFieldBytes
        case .written(let written):
            written.encodedFieldBytes
        }
    }

    /// The index of the first field named `name` at or after `start` in a list's buffer: the one
    /// scan behind the list's lookups. Read in place, lengths first: a field's strings are never
    /// copied (no reference counting), and most names are rejected by their length.
    private static func index(of name: String, in buffer: UnsafeBufferPointer<Field>, from start: Int) -> Int? {
        let length = name.utf8.count
        var index = start
        while index < buffer.count {
            if buffer[index].name.utf8.count == length, buffer[index].name.asciiCaseInsensitiveEquals(name) { return index }
            index += 1
        }
        return nil
    }

    /// Calls `body` with each field's name and value in order (for a list of fields, read in
    /// place: no copy of the strings per field, as iterating the fields makes).
    public func forEachField(_ body: (_ name: String, _ value: String) throws -> Void) rethrows {
        switch storage {
        case .list(let list):
            try list.withUnsafeBufferPointer { buffer in
                for index in buffer.indices { try body(buffer[index].name, buffer[index].value) }
            }
        case .received(let received):
            try received.forEachField { name, value in try body(name, value()) }
        case .written(let written):
            try written.forEachFieldBytes { name, value in
                try body(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
            }
        }
    }

    /// Calls `body` with each field's name in order and a function that gives its value: a
    /// received field's value becomes a string only when `body` asks for it (a filter that
    /// keeps a few named fields makes no string for the others' values).
    public func forEachField(lazily body: (_ name: String, _ value: () -> String) throws -> Void) rethrows {
        switch storage {
        case .list(let list):
            try list.withUnsafeBufferPointer { buffer in
                for index in buffer.indices { try body(buffer[index].name) { buffer[index].value } }
            }
        case .received(let received):
            try received.forEachField(body)
        case .written(let written):
            try written.forEachFieldBytes { name, value in
                try body(String(decoding: name, as: UTF8.self)) { String(decoding: value, as: UTF8.self) }
            }
        }
    }

    /// Calls `body` with each field's name and value as UTF-8 bytes, in order, read in place:
    /// no string is made (a filter that keeps a few named fields makes strings only for those).
    /// The bytes are valid only inside `body`.
    public func forEachFieldBytes(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        switch storage {
        case .list(let list):
            for index in list.indices {
                try ASCII.withUTF8(of: list[index].name) { name in
                    try ASCII.withUTF8(of: list[index].value) { value in try body(name, value) }
                }
            }
        case .received(let received):
            try received.forEachFieldBytes(body)
        case .written(let written):
            try written.forEachFieldBytes(body)
        }
    }

    /// The fields as a list to change, taken out of the storage (which lets go of it, so the
    /// caller's changes are made in place); received fields become a list here. The caller
    /// stores the list back.
    private mutating func takeList() -> [Field] {
        switch storage {
        case .list(let list):
            storage = .list([])
            return list
        case .received(let received):
            return received.fields
        case .written(let written):
            return written.fields
        }
    }

    /// Appends a field, keeping any existing one of the same name.
    public mutating func add(name: String, value: String) {
        if case .written(var written) = storage {
            storage = .list([])  // lets go of the bytes, so they are appended to in place
            written.append(name: name, value: value)
            storage = .written(written)
            return
        }
        var list = takeList()
        list.append((name: name, value: value))
        storage = .list(list)
    }

    /// Replaces the first field `name` and removes the others, or appends it when absent.
    public mutating func replaceOrAdd(name: String, value: String) {
        var list = takeList()
        defer { storage = .list(list) }
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
        var list = takeList()
        list.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
        storage = .list(list)
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
        ASCII.withUTF8(of: value) { bytes in
            ASCII.withUTF8(of: token) { wanted in
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
