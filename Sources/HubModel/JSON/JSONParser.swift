/// A strict, bounded RFC 8259 parser straight from bytes to ``JSONValue``.
///
/// - Strings must be valid UTF-8; `\u` escapes must pair surrogates.
/// - Integer literals must fit in 64 bits; other numbers must be finite doubles.
/// - Nesting deeper than ``Options/maxDepth`` is rejected (the recursion is bounded by it).
/// - Duplicate keys are rejected by default (``Options/duplicateKeys``): a document that says
///   two things about one key is ambiguous, and the server answers 400 rather than guess.
public struct JSONParser: Sendable {
    /// What to do with a key that appears twice in one object.
    public enum DuplicateKeyPolicy: Sendable {
        /// Reject the document (the default).
        case reject
        /// Keep the last value, at the first occurrence's position.
        case keepLast
    }

    /// Parser limits and policies.
    public struct Options: Sendable {
        /// Maximum nesting of arrays and objects (the top-level container is depth 1).
        public var maxDepth: Int
        /// What a repeated key does.
        public var duplicateKeys: DuplicateKeyPolicy
        /// An integer literal beyond 64 bits: an error (`false`, the default), or read as a
        /// `Double` like a literal with a fraction or exponent (`true`; still an error past the
        /// finite `Double` range). JSON Schema cannot tell `1e20` from `100000000000000000000`,
        /// so request bodies, which a published schema describes, read both alike.
        public var largeIntegersAsDoubles: Bool

        public init(maxDepth: Int = 64, duplicateKeys: DuplicateKeyPolicy = .reject, largeIntegersAsDoubles: Bool = false) {
            self.maxDepth = maxDepth
            self.duplicateKeys = duplicateKeys
            self.largeIntegersAsDoubles = largeIntegersAsDoubles
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Parses one JSON document.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parseBuffer(buffer) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(JSONParseError) -> JSONValue in
            try parseBuffer(buffer)
        }
    }

    /// Parses one JSON document from a string.
    public func parse(_ string: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(string.utf8))
    }

    private func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var cursor = Cursor(buffer: buffer, options: options)
        cursor.skipWhitespace()
        guard cursor.position < buffer.count else { throw cursor.error(.empty) }
        let value = try cursor.parseValue(depth: 0)
        cursor.skipWhitespace()
        guard cursor.position == buffer.count else { throw cursor.error(.trailingBytes) }
        return value
    }
}

/// The parser's state over one contiguous buffer.
private struct Cursor {
    let buffer: UnsafeBufferPointer<UInt8>
    let options: JSONParser.Options
    var position = 0
    /// Reused for strings with escapes.
    var scratch: [UInt8] = []
    /// Keys and values of the objects and arrays being parsed, innermost last: each container
    /// copies its own elements out once, so its storage is allocated exactly once.
    var keyStack: [String] = []
    var valueStack: [JSONValue] = []

    init(buffer: UnsafeBufferPointer<UInt8>, options: JSONParser.Options) {
        self.buffer = buffer
        self.options = options
    }

    func error(_ reason: JSONParseError.Reason, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? position, buffer.count)
        var line = 1
        var lineStart = 0
        for index in 0..<offset where buffer[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return JSONParseError(reason: reason, offset: offset, line: line, column: offset - lineStart + 1)
    }

    @inline(__always) mutating func skipWhitespace() {
        while position < buffer.count {
            switch buffer[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard position < buffer.count else { throw error(.unexpectedEnd) }
        switch buffer[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw error(.unexpectedByte(byte))
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for offset in 0..<count {
            guard position < buffer.count else { throw error(.unexpectedEnd) }
            guard buffer[position] == start[offset] else { throw error(.unexpectedByte(buffer[position])) }
            position += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= options.maxDepth else { throw error(.tooDeep(limit: options.maxDepth)) }
        position += 1  // {
        skipWhitespace()
        guard position < buffer.count else { throw error(.unexpectedEnd) }
        if buffer[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject())
        }
        let base = keyStack.count
        let valueBase = valueStack.count
        defer {
            keyStack.removeSubrange(base...)
            valueStack.removeSubrange(valueBase...)
        }
        var seen: Set<String>? = nil
        while true {
            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEnd) }
            guard buffer[position] == UInt8(ascii: "\"") else { throw error(.unexpectedByte(buffer[position])) }
            let keyOffset = position
            let key = try parseString()
            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEnd) }
            guard buffer[position] == UInt8(ascii: ":") else { throw error(.unexpectedByte(buffer[position])) }
            position += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)

            let count = keyStack.count - base
            var duplicate: Int? = nil
            if count < JSONObject.indexThreshold {
                for index in base..<keyStack.count where keyStack[index] == key {
                    duplicate = index
                    break
                }
            } else {
                if seen == nil { seen = Set(keyStack[base...]) }
                if !seen!.insert(key).inserted { duplicate = keyStack[base...].firstIndex(of: key) }
            }
            if let duplicate {
                switch options.duplicateKeys {
                case .reject: throw error(.duplicateKey(key), at: keyOffset)
                case .keepLast: valueStack[valueBase + (duplicate - base)] = value
                }
            } else {
                keyStack.append(key)
                valueStack.append(value)
            }

            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEnd) }
            switch buffer[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(JSONObject(uniqueKeys: Array(keyStack[base...]), values: Array(valueStack[valueBase...])))
            case let byte: throw error(.unexpectedByte(byte))
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= options.maxDepth else { throw error(.tooDeep(limit: options.maxDepth)) }
        position += 1  // [
        skipWhitespace()
        guard position < buffer.count else { throw error(.unexpectedEnd) }
        if buffer[position] == UInt8(ascii: "]") {
            position += 1
            return .array([])
        }
        let base = valueStack.count
        defer { valueStack.removeSubrange(base...) }
        while true {
            skipWhitespace()
            let element = try parseValue(depth: depth)
            valueStack.append(element)
            skipWhitespace()
            guard position < buffer.count else { throw error(.unexpectedEnd) }
            switch buffer[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(Array(valueStack[base...]))
            case let byte: throw error(.unexpectedByte(byte))
            }
        }
    }

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        let start = position
        var isASCII = true
        // Fast path: no escapes.
        while position < buffer.count {
            let byte = buffer[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: buffer[start..<position])
                position += 1
                return try makeString(slice, isASCII: isASCII, offset: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error(.unescapedControlCharacter) }
            if byte >= 0x80 { isASCII = false }
            position += 1
        }
        guard position < buffer.count else { throw error(.unexpectedEnd) }
        // Slow path: copy into scratch, decoding escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<position]))
        while position < buffer.count {
            let byte = buffer[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                let bytes = scratch
                return try bytes.withUnsafeBufferPointer { pointer throws(JSONParseError) -> String in
                    try makeString(pointer, isASCII: false, offset: start)
                }
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape()
            case 0..<0x20:
                throw error(.unescapedControlCharacter)
            default:
                scratch.append(byte)
                position += 1
            }
        }
        throw error(.unexpectedEnd)
    }

    func makeString(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool, offset: Int) throws(JSONParseError) -> String {
        if isASCII { return String(decoding: bytes, as: UTF8.self) }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw error(.invalidUTF8, at: offset)
        }
        return string
    }

    mutating func parseEscape() throws(JSONParseError) {
        guard position < buffer.count else { throw error(.unexpectedEnd) }
        let byte = buffer[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): scratch.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let escapeStart = position - 2
            let unit = try parseHex4()
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard position + 1 < buffer.count,
                    buffer[position] == UInt8(ascii: "\\"), buffer[position + 1] == UInt8(ascii: "u")
                else { throw error(.loneSurrogate, at: escapeStart) }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error(.loneSurrogate, at: escapeStart) }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw error(.loneSurrogate, at: escapeStart)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw error(.loneSurrogate, at: escapeStart) }
            scratch.append(contentsOf: UTF8.encode(scalar)!)
        default:
            throw error(.invalidEscape, at: position - 2)
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard position + 4 <= buffer.count else { throw error(.unexpectedEnd) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = buffer[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var isNegative = false
        if buffer[position] == UInt8(ascii: "-") {
            isNegative = true
            position += 1
        }
        guard position < buffer.count else { throw error(.unexpectedEnd) }
        var integer = 0
        var integerOverflow = false
        if buffer[position] == UInt8(ascii: "0") {
            position += 1
            if position < buffer.count, isDigit(buffer[position]) { throw error(.invalidNumber) }
        } else if isDigit(buffer[position]) {
            while position < buffer.count, isDigit(buffer[position]) {
                let digit = Int(buffer[position] - UInt8(ascii: "0"))
                if !integerOverflow {
                    let (shifted, overflow1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) =
                        isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                    if overflow1 || overflow2 { integerOverflow = true } else { integer = next }
                }
                position += 1
            }
        } else {
            throw error(.invalidNumber)
        }
        var isInteger = true
        if position < buffer.count, buffer[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < buffer.count, isDigit(buffer[position]) else { throw error(.invalidNumber) }
            while position < buffer.count, isDigit(buffer[position]) { position += 1 }
        }
        if position < buffer.count, buffer[position] == UInt8(ascii: "e") || buffer[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < buffer.count, buffer[position] == UInt8(ascii: "+") || buffer[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < buffer.count, isDigit(buffer[position]) else { throw error(.invalidNumber) }
            while position < buffer.count, isDigit(buffer[position]) { position += 1 }
        }
        if isInteger && !(integerOverflow && options.largeIntegersAsDoubles) {
            guard !integerOverflow else { throw error(.numberOutOfRange, at: start) }
            return .int(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw error(.numberOutOfRange, at: start) }
        return .double(double)
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
