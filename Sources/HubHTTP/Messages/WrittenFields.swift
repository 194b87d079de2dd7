import HubPrimitives

/// A response's header fields written down as bytes as they are added: each name and value is
/// copied once into one array, and the response head is written from it in place. A list of
/// `(name, value)` strings keeps a reference to every string, which the list's copies, the head's
/// loop over it and its destruction each count again; here the whole list is one reference.
///
/// Layout of ``storage``: the field count and the bytes in use (two `UInt32`s) and the names'
/// ``FieldNameFilter`` bits (a `UInt64`), then per field its name's and value's byte counts (two
/// `UInt32`s) followed by the name's and the value's bytes, in the order added; the rest is room
/// for more (made zeroed at once, so that a field is copied in with two `memcpy`s rather than
/// appended byte by byte). Nothing is checked or changed on the way in: the head's writer
/// sanitizes names and values as it does a list's (``ResponseEncoder``).
struct WrittenFields: Sendable {
    private var storage: [UInt8]

    private static let headerBytes = 16
    private static let lengthBytes = 8

    /// No fields, with room for `bytes` of fields (each its name, value and eight bytes) before
    /// the array grows.
    init(reservingCapacity bytes: Int) {
        storage = .zeroed(count: Self.headerBytes + Swift.max(0, bytes))
        storage.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(Self.headerBytes).littleEndian, toByteOffset: 4, as: UInt32.self) }
    }

    /// How many fields were added.
    var count: Int { storage.withUnsafeBytes { Self.load(0, in: $0) } }

    /// The bytes in use, the header included.
    private var used: Int { storage.withUnsafeBytes { Self.load(4, in: $0) } }

    private static func load(_ offset: Int, in raw: UnsafeRawBufferPointer) -> Int {
        Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    /// Appends a field (a name or value longer than 4 GiB is not a header field: it traps).
    mutating func append(name: String, value: String) {
        ASCII.withUTF8(of: name) { name in
            ASCII.withUTF8(of: value) { value in append(name: name, value: value) }
        }
    }

    private mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let start = used
        let end = start + Self.lengthBytes + name.count + value.count
        if end > storage.count { storage.append(contentsOf: repeatElement(0, count: Swift.max(end - storage.count, storage.count))) }
        storage.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(name.count).littleEndian, toByteOffset: start, as: UInt32.self)
            raw.storeBytes(of: UInt32(value.count).littleEndian, toByteOffset: start + 4, as: UInt32.self)
            let nameStart = raw.baseAddress! + start + Self.lengthBytes
            if let base = name.baseAddress { nameStart.copyMemory(from: base, byteCount: name.count) }
            if let base = value.baseAddress { (nameStart + name.count).copyMemory(from: base, byteCount: value.count) }
            raw.storeBytes(of: UInt32(Self.load(0, in: UnsafeRawBufferPointer(raw)) + 1).littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(end).littleEndian, toByteOffset: 4, as: UInt32.self)
            let names = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) | FieldNameFilter.bit(of: name)
            raw.storeBytes(of: names.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
    }

    /// The bytes the fields take as `name: value` lines (`: ` and CRLF included).
    var encodedFieldBytes: Int {
        // Each field's two lengths (8 bytes) become its `: ` and CRLF (4).
        used - Self.headerBytes - count * (Self.lengthBytes - 4)
    }

    /// Calls `body` with each field's name and value bytes in order, read in place.
    func forEachFieldBytes(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        try storage.withUnsafeBytes { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            var offset = Self.headerBytes
            for _ in 0..<Self.load(0, in: raw) {
                let nameCount = Self.load(offset, in: raw)
                let valueCount = Self.load(offset + 4, in: raw)
                let nameStart = offset + Self.lengthBytes
                let valueStart = nameStart + nameCount
                try body(
                    UnsafeBufferPointer(rebasing: bytes[nameStart..<valueStart]),
                    UnsafeBufferPointer(rebasing: bytes[valueStart..<valueStart + valueCount]))
                offset = valueStart + valueCount
            }
        }
    }

    /// Calls `body` with the value bytes of each field named `name` (ASCII case-insensitive), in
    /// order, until it returns false; at once when the ``FieldNameFilter`` rules the name out.
    func forEachValueBytes(named name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows {
        try ASCII.withUTF8(of: name) { wanted in
            let summary = storage.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            guard FieldNameFilter.mayHold(wanted, summary: summary) else { return }
            var going = true
            try forEachFieldBytes { fieldName, value in
                guard going, fieldName.count == wanted.count, ASCII.caseInsensitiveEquals(fieldName, wanted) else { return }
                going = try body(value)
            }
        }
    }

    /// Every field as strings, in the order added.
    var fields: [HTTPHeaders.Field] {
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(count)
        forEachFieldBytes { name, value in
            fields.append((name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        return fields
    }
}
