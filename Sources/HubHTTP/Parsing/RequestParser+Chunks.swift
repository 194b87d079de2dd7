/// The chunk-size lines of ``RequestParser``'s chunked content (RFC 9112 section 7.1).
extension RequestParser {
    /// chunk-size [ chunk-ext ] (RFC 9112 section 7.1); extensions are ignored.
    static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = RequestTarget.hexValue(line[index]) {
            guard size <= (Int.max >> 4) else { throw .bad("invalid_chunk", "The chunk size is too large.") }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > line.startIndex else { throw .bad("invalid_chunk", "The chunk size is not hexadecimal.") }
        while index < line.endIndex, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        if index < line.endIndex {
            guard line[index] == UInt8(ascii: ";") else { throw .bad("invalid_chunk", "The chunk size line is malformed.") }
            for byte in line[index...] where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                throw .bad("invalid_chunk", "A chunk extension has invalid characters.")
            }
        }
        return size
    }
}
