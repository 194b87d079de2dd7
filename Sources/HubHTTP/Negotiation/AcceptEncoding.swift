import HubPrimitives

/// `Accept-Encoding` negotiation (RFC 9110 section 12.5.3).
public enum AcceptEncoding {
    /// Whether gzip should be used: its q-value (explicit `gzip`/`x-gzip`, else `*`, else 0) is
    /// above 0 and not below an explicit preference for identity (`identity`, else `*`).
    /// ``prefersGzip(_:)`` of the request's `Accept-Encoding` fields, read in place: the common
    /// single field without parameters is decided from its bytes, without making a string.
    public static func prefersGzip(in headers: HTTPHeaders) -> Bool {
        var count = 0
        var first: Bool?
        headers.forEachValueBytes(named: "Accept-Encoding") { value in
            count += 1
            if count == 1 { first = withoutParameters(value) }
            return true
        }
        guard count > 0 else { return false }
        if count == 1, let first { return first }
        return prefersGzip(headers.values(for: "Accept-Encoding"))
    }

    public static func prefersGzip(_ values: [String]) -> Bool {
        if values.count == 1, let answer = withoutParameters(values[0]) { return answer }
        var gzip: Double?
        var identity: Double?
        var star: Double?
        for element in WeightedList(values).elements {
            let coding = element.value
            if coding.asciiCaseInsensitiveEquals("gzip") || coding.asciiCaseInsensitiveEquals("x-gzip") {
                gzip = max(gzip ?? 0, element.quality)
            } else if coding.asciiCaseInsensitiveEquals("identity") {
                identity = element.quality
            } else if coding == "*" {
                star = element.quality
            }
        }
        let gzipQ = gzip ?? star ?? 0
        let identityQ = identity ?? star ?? 0
        return gzipQ > 0 && gzipQ >= identityQ
    }

    /// The answer for one field value with no parameters (`;`) and no `*`, such as browsers'
    /// `gzip, deflate, br`, read without splitting: every coding listed has q=1, so gzip is
    /// preferred exactly when `gzip` or `x-gzip` is listed. `nil` when the full rules are needed.
    private static func withoutParameters(_ value: String) -> Bool? {
        ASCII.withUTF8(of: value) { withoutParameters($0) }
    }

    /// ``withoutParameters(_:)-(String)`` of a value's bytes, read in place.
    private static func withoutParameters(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        if bytes.contains(UInt8(ascii: ";")) || bytes.contains(UInt8(ascii: "*")) { return nil }
        var index = 0
        while index < bytes.count {
            while index < bytes.count, isSeparator(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count, !isSeparator(bytes[index]) { index += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[start..<index])
            if ASCII.caseInsensitiveEquals(token, "gzip") || ASCII.caseInsensitiveEquals(token, "x-gzip") { return true }
        }
        return false
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
