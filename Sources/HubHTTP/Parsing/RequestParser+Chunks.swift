/// The chunk-size lines of ``RequestParser``'s chunked content (RFC 9112 section 7.1).
extension RequestParser {
    /// chunk-size [ chunk-ext ] (RFC 9112 section 7.1): the size; the extensions are checked
    /// against their grammar (``checkChunkExtensions(_:)``) and ignored.
    static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = RequestTarget.hexValue(line[index]) {
            guard size <= (Int.max >> 4) else { throw .bad("invalid_chunk", "The chunk size is too large.") }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > line.startIndex else { throw .bad("invalid_chunk", "The chunk size is not hexadecimal.") }
        try checkChunkExtensions(line[index...])
        return size
    }

    /// chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ), where
    /// chunk-ext-name = token and chunk-ext-val = token / quoted-string (RFC 9112 section 7.1.1;
    /// BWS is optional SP or HTAB, RFC 9110 section 5.6.3). Anything else after the size is
    /// refused: whitespace not followed by `;`, a `;` with no name, an `=` with no value, a
    /// quoted string left open, a control byte.
    static func checkChunkExtensions(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) {
        var index = bytes.startIndex
        let end = bytes.endIndex
        func skipWhitespace(from start: Int) -> Int {
            var at = start
            while at < end, bytes[at] == 0x20 || bytes[at] == 0x09 { at += 1 }
            return at
        }
        func token(from start: Int) -> Int {
            var at = start
            while at < end, isTokenByte(bytes[at]) { at += 1 }
            return at
        }
        while index < end {
            index = skipWhitespace(from: index)
            guard index < end, bytes[index] == UInt8(ascii: ";") else {
                throw .bad("invalid_chunk", "The chunk size line is malformed.")
            }
            index = skipWhitespace(from: index + 1)
            let nameEnd = token(from: index)
            guard nameEnd > index else { throw .bad("invalid_chunk", "A chunk extension has no name.") }
            index = nameEnd
            let equals = skipWhitespace(from: index)
            guard equals < end, bytes[equals] == UInt8(ascii: "=") else { continue }
            index = skipWhitespace(from: equals + 1)
            if index < end, bytes[index] == UInt8(ascii: "\"") {
                index = try quotedStringEnd(bytes, from: index + 1)
            } else {
                let valueEnd = token(from: index)
                guard valueEnd > index else { throw .bad("invalid_chunk", "A chunk extension has no value after '='.") }
                index = valueEnd
            }
        }
    }

    /// Where the quoted-string whose first byte after the opening quote is at `start` ends
    /// (after its closing quote). quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE,
    /// qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text, quoted-pair = "\" ( HTAB / SP /
    /// VCHAR / obs-text ) (RFC 9110 section 5.6.4).
    private static func quotedStringEnd(_ bytes: ArraySlice<UInt8>, from start: Int) throws(HTTPParseError) -> Int {
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                return index + 1
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.endIndex, isQuotedTextByte(bytes[index + 1]) || bytes[index + 1] == UInt8(ascii: "\"")
                    || bytes[index + 1] == UInt8(ascii: "\\")
                else { throw .bad("invalid_chunk", "A chunk extension's quoted value has an invalid escape.") }
                index += 2
            default:
                guard isQuotedTextByte(byte) else { throw .bad("invalid_chunk", "A chunk extension has invalid characters.") }
                index += 1
            }
        }
        throw .bad("invalid_chunk", "A chunk extension's quoted value is not closed.")
    }

    /// qdtext without its exclusions: HTAB, SP, visible ASCII other than `"` and `\`, obs-text.
    private static func isQuotedTextByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\"))
    }
}
