import HubPrimitives

/// `Accept-Encoding` negotiation (RFC 9110 section 12.5.3).
public enum AcceptEncoding {
    /// Whether gzip should be used: its q-value (explicit `gzip`/`x-gzip`, else `*`, else 0) is
    /// above 0 and not below an explicit preference for identity (`identity`, else `*`).
    /// ``prefersGzip(_:)`` of the request's `Accept-Encoding` fields, read in place: the common
    /// single field without parameters is decided without collecting the values.
    public static func prefersGzip(in headers: HTTPHeaders) -> Bool {
        var single: String?
        var count = 0
        headers.forEachValue(named: "Accept-Encoding") { value in
            single = value
            count += 1
            return true
        }
        guard let single else { return false }
        if count == 1, let answer = withoutParameters(single) { return answer }
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
        // Native strings are contiguous; the rare bridged one takes the general path.
        let answer = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
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
        return answer ?? nil
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
