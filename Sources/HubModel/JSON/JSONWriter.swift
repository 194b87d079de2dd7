/// Writes JSON straight into a byte buffer: no `Any`, no `JSONSerialization`, no `Encoder`.
///
/// Non-copyable: it owns its buffer, so appends are a bounds check and a `memcpy`.
///
/// Output is compact and byte-stable: strings are escaped minimally (`"`, `\` and control
/// characters), non-ASCII is written as UTF-8, objects keep their key order, doubles use
/// Swift's shortest round-trip form.
public struct JSONWriter: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count: Int
    @usableFromInline var capacity: Int

    /// A writer with room for `capacity` bytes; it grows as needed.
    public init(capacity: Int = 1024) {
        self.capacity = max(capacity, 64)
        self.base = .allocate(capacity: self.capacity)
        self.count = 0
    }

    deinit {
        base.deallocate()
    }

    /// The bytes written so far (a copy).
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Number of bytes written so far.
    public var byteCount: Int { count }

    /// Ends writing and returns the bytes.
    public consuming func finish() -> [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always) @usableFromInline mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    @inline(never) @usableFromInline mutating func grow(to minimum: Int) {
        let newCapacity = max(capacity * 2, minimum)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always) public mutating func writeByte(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends bytes verbatim.
    @inlinable @inline(__always) public mutating func writeBytes(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress, buffer.count > 0 else { return }
        reserve(buffer.count)
        (base + count).initialize(from: source, count: buffer.count)
        count += buffer.count
    }

    /// Appends bytes verbatim.
    public mutating func writeBytes(_ array: [UInt8]) {
        array.withUnsafeBufferPointer { writeBytes($0) }
    }

    /// Appends ASCII text verbatim (punctuation and fixed keys).
    @inlinable @inline(__always) public mutating func writeRaw(_ text: StaticString) {
        writeBytes(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a quoted, escaped JSON string.
    public mutating func writeString(_ string: String) {
        writeByte(UInt8(ascii: "\""))
        writeEscapedContents(string)
        writeByte(UInt8(ascii: "\""))
    }

    /// Appends the escaped contents of a string without the quotes.
    public mutating func writeEscapedContents(_ string: String) {
        var string = string
        string.withUTF8 { writeEscaped($0) }
    }

    @inline(__always) private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        guard let start = utf8.baseAddress else { return }
        let length = utf8.count
        var runStart = 0
        var index = 0
        let raw = UnsafeRawPointer(start)
        while index < length {
            // Eight bytes at a time: skip words with no quote, backslash or control byte.
            if index + 8 <= length, !Self.wordNeedsEscaping(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = start[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                if runStart < index {
                    writeBytes(UnsafeBufferPointer(start: start + runStart, count: index - runStart))
                }
                writeEscape(for: byte)
                runStart = index + 1
            }
            index += 1
        }
        if runStart < length {
            writeBytes(UnsafeBufferPointer(start: start + runStart, count: length - runStart))
        }
    }

    /// `true` when any byte of `word` is below 0x20, `"` or `\` (SWAR: Hacker's Delight 6-1).
    @inline(__always) static func wordNeedsEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highs != 0
    }

    private mutating func writeEscape(for byte: UInt8) {
        writeByte(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: writeByte(0x22)
        case 0x5C: writeByte(0x5C)
        case 0x0A: writeByte(UInt8(ascii: "n"))
        case 0x0D: writeByte(UInt8(ascii: "r"))
        case 0x09: writeByte(UInt8(ascii: "t"))
        case 0x08: writeByte(UInt8(ascii: "b"))
        case 0x0C: writeByte(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            writeRaw("u00")
            writeByte(hex.utf8Start[Int(byte >> 4)])
            writeByte(hex.utf8Start[Int(byte & 0x0F)])
        }
    }

    /// Appends an integer in decimal.
    public mutating func writeInt(_ value: Int) {
        if value >= 0 && value < 10 {
            writeByte(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var magnitude = value.magnitude
        reserve(20)
        // Digits backwards into the reserved space, then moved into place.
        var digits = 0
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { raw in
            var end = raw.count
            repeat {
                end -= 1
                raw[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                end -= 1
                raw[end] = UInt8(ascii: "-")
            }
            digits = raw.count - end
            (base + count).initialize(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + end, count: digits)
        }
        count += digits
    }

    /// Appends a double in Swift's shortest round-trip form; non-finite values (which the
    /// parser never produces) are written as `null`, the only JSON that can stand for them.
    public mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            writeRaw("null")
            return
        }
        var text = value.description
        text.withUTF8 { writeBytes($0) }
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
            writeByte(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { writeByte(UInt8(ascii: ",")) }
                writeValue(element)
            }
            writeByte(UInt8(ascii: "]"))
        case .object(let object): writeObject(object)
        }
    }

    /// Appends an object with its keys in order.
    public mutating func writeObject(_ object: JSONObject) {
        writeByte(UInt8(ascii: "{"))
        for position in object.indices {
            if position > 0 { writeByte(UInt8(ascii: ",")) }
            writeString(object.keys[position])
            writeByte(UInt8(ascii: ":"))
            writeValue(object.values[position])
        }
        writeByte(UInt8(ascii: "}"))
    }
}

extension JSONValue {
    /// The compact, byte-stable JSON encoding of this value.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.writeValue(self)
        return writer.finish()
    }

    /// The compact JSON encoding as a string.
    public var jsonString: String {
        String(decoding: jsonBytes, as: UTF8.self)
    }
}
