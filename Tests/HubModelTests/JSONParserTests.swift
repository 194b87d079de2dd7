import HubModel
import Testing

/// Parser input safety (DESIGN.md "Limits and bad input"): every malformed input is an error
/// with a reason and a place; nothing is accepted that cannot be represented faithfully.
@Suite("JSON parser")
struct JSONParserTests {
    // MARK: - Values

    @Test("scalars, containers and integer/double distinction")
    func values() throws {
        #expect(try parseJSON("true") == .bool(true))
        #expect(try parseJSON("false") == .bool(false))
        #expect(try parseJSON("null") == .null)
        #expect(try parseJSON("\"abc\"") == .string("abc"))
        #expect(try parseJSON("42").intValue == 42)
        #expect(try parseJSON("-0").intValue == 0)
        #expect(try parseJSON("1.0").intValue == nil, "a fraction is a double even when integral")
        #expect(try parseJSON("1.0") == .double(1.0))
        #expect(try parseJSON("1.5e3") == .double(1500))
        #expect(try parseJSON("2E-2") == .double(0.02))
        #expect(try parseJSON(" [1, \"a\", {\"k\": null}, [] ] ") == [1, "a", ["k": nil], []])
        #expect(try parseJSON("{}") == .object(JSONObject()))
    }

    @Test("numbers compare by value across int and double")
    func numberEquality() {
        #expect(JSONValue.int(1) == JSONValue.double(1.0))
        #expect(JSONValue.int(1) != JSONValue.double(1.5))
        #expect(JSONValue.int(1) != JSONValue.string("1"))
    }

    @Test("object keys keep their input order; equality ignores order")
    func keyOrder() throws {
        let value = try parseJSON(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.orderedKeys == ["z", "a", "m"])
        #expect(value == (try parseJSON(#"{"a":2,"m":3,"z":1}"#)))
        #expect(value != (try parseJSON(#"{"a":2,"m":3}"#)))
    }

    @Test("large objects (past the hash-index threshold) keep order and lookups")
    func largeObject() throws {
        let count = JSONObject.indexThreshold * 3
        let text = "{" + (0..<count).map { "\"k\(count - $0)\":\($0)" }.joined(separator: ",") + "}"
        let object = try #require(try parseJSON(text).objectValue)
        #expect(object.count == count)
        #expect(object.orderedKeys.first == "k\(count)")
        #expect(object["k1"] == .int(count - 1))
        #expect(object["missing"] == nil)
    }

    @Test("string escapes, including surrogate pairs, decode to the right scalars")
    func escapes() throws {
        #expect(try parseJSON(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try parseJSON(#""\u00e9\u4E2D""#) == .string("é中"))
        #expect(try parseJSON(#""\uD83D\uDE00""#) == .string("😀"))
        #expect(try parseJSON("\"é😀\"") == .string("é😀"), "raw UTF-8 is accepted")
        #expect(try parseJSON(#""x\u0000y""#) == .string("x\u{0}y"))
    }

    // MARK: - Encoding

    @Test("invalid UTF-8 inside a string is rejected")
    func invalidUTF8() {
        let quote = UInt8(ascii: "\"")
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0x80]] {
            let error = parseError([quote] + bad + [quote])
            #expect(error?.reason == .invalidUTF8, "bytes \(bad)")
        }
        // The slow path (a string with an escape) validates too.
        let escaped = parseError([quote, UInt8(ascii: "\\"), UInt8(ascii: "n"), 0xFF, quote])
        #expect(escaped?.reason == .invalidUTF8)
        // In an object key as well.
        let key = parseError(Array("{\"".utf8) + [0xFE] + Array("\":1}".utf8))
        #expect(key?.reason == .invalidUTF8)
    }

    @Test("a non-ASCII byte outside a string is an unexpected byte")
    func byteOutsideString() {
        #expect(parseError([0xFF])?.reason == .unexpectedByte(0xFF))
    }

    @Test("lone UTF-16 surrogates in \\u escapes are rejected")
    func loneSurrogates() {
        #expect(parseError(#""\uD800""#)?.reason == .loneSurrogate)
        #expect(parseError(#""\uDC00""#)?.reason == .loneSurrogate)
        #expect(parseError(#""\uD800\u0041""#)?.reason == .loneSurrogate)
        #expect(parseError(#""\uD800x""#)?.reason == .loneSurrogate)
        #expect(parseError(#""\uDBFF\uDBFF""#)?.reason == .loneSurrogate)
        let error = parseError(#"["ok","\uDC00"]"#)
        #expect(error?.offset == 7, "points at the escape")
    }

    @Test("bad escapes and raw control characters are rejected")
    func badEscapes() {
        #expect(parseError(#""\x""#)?.reason == .invalidEscape)
        #expect(parseError(#""\u12G4""#)?.reason == .invalidEscape)
        #expect(parseError("\"a\tb\"")?.reason == .unescapedControlCharacter)
        #expect(parseError("\"a\nb\"")?.reason == .unescapedControlCharacter)
    }

    // MARK: - Duplicate keys

    @Test("duplicate keys are rejected by default, at the second key")
    func duplicateKeysRejected() {
        let error = parseError(#"{"a":1,"a":2}"#)
        #expect(error?.reason == .duplicateKey("a"))
        #expect(error?.offset == 7)
        #expect(error?.column == 8)
        // Nested objects are checked too.
        #expect(parseError(#"{"x":{"b":1,"c":2,"b":3}}"#)?.reason == .duplicateKey("b"))
        // Keys compare after unescaping.
        #expect(parseError(#"{"a":1,"\u0061":2}"#)?.reason == .duplicateKey("a"))
        // Same key in sibling objects is fine.
        #expect(parseError(#"[{"a":1},{"a":2}]"#) == nil)
    }

    @Test("duplicate keys are found in objects past the hash-index threshold")
    func duplicateKeysLargeObject() {
        let fields = (0..<(JSONObject.indexThreshold + 10)).map { "\"k\($0)\":\($0)" }
        let text = "{" + fields.joined(separator: ",") + ",\"k3\":0}"
        #expect(parseError(text)?.reason == .duplicateKey("k3"))
        let late = "{" + fields.joined(separator: ",") + ",\"k20\":0}"
        #expect(parseError(late)?.reason == .duplicateKey("k20"))
    }

    @Test("keepLast keeps the last value at the first occurrence's position")
    func duplicateKeysKeepLast() throws {
        let options = JSONParser.Options(duplicateKeys: .keepLast)
        let value = try parseJSON(#"{"a":1,"b":2,"a":3}"#, options: options)
        #expect(value.objectValue?.orderedKeys == ["a", "b"])
        #expect(value["a"] == .int(3))
    }

    // MARK: - Numbers

    @Test("integers must fit in 64 bits")
    func integerRange() throws {
        #expect(try parseJSON("9223372036854775807") == .int(Int.max))
        #expect(try parseJSON("-9223372036854775808") == .int(Int.min))
        #expect(parseError("9223372036854775808")?.reason == .numberOutOfRange)
        #expect(parseError("-9223372036854775809")?.reason == .numberOutOfRange)
        #expect(parseError("123456789012345678901234567890")?.reason == .numberOutOfRange)
        let nested = parseError(#"{"n":[1, 99999999999999999999]}"#)
        #expect(nested?.reason == .numberOutOfRange)
        #expect(nested?.offset == 9, "points at the number's first byte")
    }

    @Test("doubles must be finite")
    func doubleRange() throws {
        #expect(parseError("1e400")?.reason == .numberOutOfRange)
        #expect(parseError("-1e400")?.reason == .numberOutOfRange)
        #expect(parseError("1.5e309")?.reason == .numberOutOfRange)
        #expect(try parseJSON("1e308") == .double(1e308))
        #expect(try parseJSON("1e-400") == .double(0), "underflow rounds to zero, which is finite")
    }

    @Test("malformed numbers are rejected")
    func malformedNumbers() {
        #expect(parseError("01")?.reason == .invalidNumber)
        #expect(parseError("1.")?.reason == .invalidNumber)
        #expect(parseError("1.e5")?.reason == .invalidNumber)
        #expect(parseError("1e")?.reason == .invalidNumber)
        #expect(parseError("-a")?.reason == .invalidNumber)
        #expect(parseError(".5")?.reason == .unexpectedByte(UInt8(ascii: ".")))
        #expect(parseError("+1")?.reason == .unexpectedByte(UInt8(ascii: "+")))
        #expect(parseError("-")?.reason == .unexpectedEnd)
    }

    // MARK: - Depth

    @Test("depth limit: 64 nested arrays accepted, 65 rejected (default 64)")
    func depthLimit() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(parseError(ok) == nil)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = parseError(deep)
        #expect(error?.reason == .tooDeep(limit: 64))
        #expect(error?.offset == 64, "points at the 65th bracket")
    }

    @Test("depth limit counts objects and arrays alike, and is configurable")
    func depthLimitMixed() {
        let options = JSONParser.Options(maxDepth: 3)
        #expect(parseError(#"{"a":[{"b":1}]}"#, options: options) == nil)
        #expect(parseError(#"{"a":[{"b":[]}]}"#, options: options)?.reason == .tooDeep(limit: 3))
        #expect(parseError(#"{"a":[{"b":{}}]}"#, options: options)?.reason == .tooDeep(limit: 3))
        // Scalars do not count as a level.
        #expect(parseError("1", options: JSONParser.Options(maxDepth: 0)) == nil)
        #expect(parseError("[]", options: JSONParser.Options(maxDepth: 0))?.reason == .tooDeep(limit: 0))
    }

    @Test("a very deep document fails cleanly instead of overflowing the stack")
    func veryDeep() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(parseError(deep)?.reason == .tooDeep(limit: 64))
    }

    // MARK: - Truncation, trailing bytes, empty input

    @Test("truncated input is an unexpected end", arguments: [
        #"{"a":"#, #"{"a""#, #"{"a":1,"#, "[1,2", "[", "{", #""abc"#, #""ab\"#, #""\u12"#, "tru", "nul", "-", #"{"a":1"#,
    ])
    func truncated(_ text: String) {
        #expect(parseError(text)?.reason == .unexpectedEnd)
    }

    @Test("trailing bytes after the value are rejected")
    func trailing() {
        let error = parseError("{} x")
        #expect(error?.reason == .trailingBytes)
        #expect(error?.offset == 3)
        #expect(parseError("{}{}")?.reason == .trailingBytes)
        #expect(parseError("[1]]")?.reason == .trailingBytes)
        #expect(parseError("1 2")?.reason == .trailingBytes)
        #expect(parseError(" {} \n\t\r ") == nil, "trailing whitespace is fine")
    }

    @Test("empty input and whitespace-only input are 'empty'")
    func empty() {
        #expect(parseError("")?.reason == .empty)
        #expect(parseError(" \n\t ")?.reason == .empty)
    }

    @Test("structural errors: missing colon, missing comma, trailing comma, bare words")
    func structural() {
        #expect(parseError(#"{"a" 1}"#)?.reason == .unexpectedByte(UInt8(ascii: "1")))
        #expect(parseError(#"{"a":1 "b":2}"#)?.reason == .unexpectedByte(UInt8(ascii: "\"")))
        #expect(parseError("[1,]")?.reason == .unexpectedByte(UInt8(ascii: "]")))
        #expect(parseError(#"{"a":1,}"#)?.reason == .unexpectedByte(UInt8(ascii: "}")))
        #expect(parseError("{a:1}")?.reason == .unexpectedByte(UInt8(ascii: "a")))
        #expect(parseError("True")?.reason == .unexpectedByte(UInt8(ascii: "T")))
        #expect(parseError("nulL")?.reason == .unexpectedByte(UInt8(ascii: "L")))
        #expect(parseError("<html>")?.reason == .unexpectedByte(UInt8(ascii: "<")))
    }

    // MARK: - Error places

    @Test("errors carry byte offset, 1-based line and column")
    func errorPlace() throws {
        let error = try #require(parseError("{\"a\":1,\n\"b\":x}"))
        #expect(error.reason == .unexpectedByte(UInt8(ascii: "x")))
        #expect(error.offset == 12)
        #expect(error.line == 2)
        #expect(error.column == 5)
        #expect(error.description == "unexpected character 'x' at line 2, column 5 (byte 12)")

        let third = try #require(parseError("[\n1,\n\n  ?]"))
        #expect(third.line == 4)
        #expect(third.column == 3)

        let first = try #require(parseError("x"))
        #expect((first.offset, first.line, first.column) == (0, 1, 1))

        let end = try #require(parseError("[1,\n2"))
        #expect(end.reason == .unexpectedEnd)
        #expect((end.offset, end.line, end.column) == (5, 2, 2))
    }

    @Test("error descriptions name the problem")
    func errorDescriptions() {
        #expect(parseError(#"{"a":1,"a":2}"#)?.reasonDescription == "duplicate key \"a\"")
        #expect(parseError("[" + String(repeating: "[", count: 64))?.reasonDescription == "nesting deeper than 64 levels")
        #expect(parseError([0x01])?.reasonDescription == "unexpected byte 0x1")
        #expect(parseError("")?.reasonDescription == "empty document")
    }

    @Test("parsing from a non-contiguous collection gives the same value")
    func nonContiguous() throws {
        let text = #"{"a":[1,2,{"b":"c"}]}"#
        let lazy = text.utf8.lazy.map { $0 }
        #expect(try JSONParser().parse(lazy) == (try parseJSON(text)))
    }
}
