/// Splits a request target into a percent-decoded path and query (RFC 9112 section 3.2).
///
/// Decoding rejects truncated or invalid escapes, escapes that decode to NUL, and results that
/// are not valid UTF-8. `+` is kept as a literal plus (RFC 3986), not turned into a space.
struct RequestTarget: Sendable {
    var path: String
    var query: [(name: String, value: String)]

    static func parse(_ target: [UInt8]) throws(HTTPParseError) -> RequestTarget {
        try target.withUnsafeBufferPointer { (bytes) throws(HTTPParseError) -> RequestTarget in
            try parse(bytes)
        }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> RequestTarget {
        var start = 0
        if bytes.count == 1, bytes[0] == UInt8(ascii: "*") { return RequestTarget(path: "*", query: []) }
        if bytes.first != UInt8(ascii: "/") {
            // absolute-form: scheme "://" authority [path-abempty] ["?" query]
            guard let schemeEnd = Self.absoluteFormAuthorityStart(bytes) else {
                throw .bad("invalid_target", "The request target is not in origin or absolute form.")
            }
            start = schemeEnd
            while start < bytes.count, bytes[start] != UInt8(ascii: "/"), bytes[start] != UInt8(ascii: "?") { start += 1 }
        }
        let pathEnd = ByteScan.index(of: UInt8(ascii: "?"), in: bytes, from: start) ?? bytes.count
        var path = try decode(bytes, start, pathEnd, code: "invalid_path", what: "path")
        if path.isEmpty { path = "/" }
        var query: [(name: String, value: String)] = []
        var index = pathEnd + 1
        while index < bytes.count {
            let end = ByteScan.index(of: UInt8(ascii: "&"), in: bytes, from: index) ?? bytes.count
            if end > index {
                var equals = index
                while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
                let name = try decode(bytes, index, equals, code: "invalid_query", what: "query")
                let value = equals < end ? try decode(bytes, equals + 1, end, code: "invalid_query", what: "query") : ""
                query.append((name: name, value: value))
            }
            index = end + 1
        }
        return RequestTarget(path: path, query: query)
    }

    /// The index just after `scheme://` for an `http` or `https` absolute-form target, else nil.
    private static func absoluteFormAuthorityStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for scheme in ["http://", "https://"] {
            let utf8 = Array(scheme.utf8)
            guard bytes.count >= utf8.count else { continue }
            var matches = true
            for (offset, expected) in utf8.enumerated() where bytes[offset] | 0x20 != expected | 0x20 {
                matches = false
                break
            }
            if matches { return utf8.count }
        }
        return nil
    }

    /// Percent-decodes `bytes[start..<end]` into a String.
    static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, code: String, what: String
    ) throws(HTTPParseError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if ByteScan.isPlainASCII(UnsafeRawBufferPointer(slice)) {
            return String(decoding: slice, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var index = start
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < end,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                    throw .bad(code, "The \(what) has an invalid or truncated percent escape.")
                }
                let decoded = high << 4 | low
                if decoded == 0 { throw .bad(code, "The \(what) has an escape that decodes to NUL.") }
                out.append(decoded)
                index += 3
            } else {
                if byte == 0 { throw .bad(code, "The \(what) contains NUL.") }
                out.append(byte)
                index += 1
            }
        }
        guard let string = String(validating: out, as: UTF8.self) else {
            throw .bad(code, "The \(what) does not decode to valid UTF-8.")
        }
        return string
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
