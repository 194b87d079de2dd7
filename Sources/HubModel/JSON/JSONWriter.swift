/// Writes JSON straight into a byte buffer: no `Any`, no `JSONSerialization`, no `Encoder`.
///
/// Output is compact and byte-stable: strings are escaped minimally (`"`, `\` and control
/// characters), non-ASCII is written as UTF-8, objects keep their key order, doubles use
/// Swift's shortest round-trip form.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// A writer with room for `capacity` bytes.
    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable @inline(__always) public mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends ASCII text verbatim (punctuation and fixed keys).
    @inlinable @inline(__always) public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a quoted, escaped JSON string.
    public mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            writeEscaped(utf8)
        }
        if done == nil {
            let copy = Array(string.utf8)
            copy.withUnsafeBufferPointer { writeEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    @inline(__always) private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                if runStart < index {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                }
                writeEscape(for: byte)
                runStart = index + 1
            }
            index += 1
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    private mutating func writeEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: bytes.append(0x22)
        case 0x5C: bytes.append(0x5C)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0x0F)])
        }
    }

    /// Appends an integer in decimal.
    public mutating func writeInt(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
        let count = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var end = scratch.count
            repeat {
                end -= 1
                scratch[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                end -= 1
                scratch[end] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[end...]))
            return scratch.count - end
        }
        _ = count
    }

    /// Appends a double in Swift's shortest round-trip form; non-finite values (which the
    /// parser never produces) are written as `null`, the only JSON that can stand for them.
    public mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            writeRaw("null")
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Appends any JSON value.
    public mutating func writeValue(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): flag ? writeRaw("true") : writeRaw("false")
        case .int(let integer): writeInt(integer)
        case .double(let double): writeDouble(double)
        case .string(let string): writeString(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                writeValue(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object): writeObject(object)
        }
    }

    /// Appends an object with its keys in order.
    public mutating func writeObject(_ object: JSONObject) {
        bytes.append(UInt8(ascii: "{"))
        for position in object.indices {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            writeString(object.keys[position])
            bytes.append(UInt8(ascii: ":"))
            writeValue(object.values[position])
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension JSONValue {
    /// The compact, byte-stable JSON encoding of this value.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.writeValue(self)
        return writer.bytes
    }

    /// The compact JSON encoding as a string.
    public var jsonString: String {
        String(decoding: jsonBytes, as: UTF8.self)
    }
}
