import HubPrimitives

/// Entity tags (RFC 9110 section 8.8.3) and `If-None-Match` evaluation (section 13.1.2).
public enum ETag {
    /// A strong ETag for `bytes`: a fast 64-bit hash (not cryptographic) as 16 hex digits, quoted.
    public static func strong(for bytes: [UInt8]) -> String {
        let hash = bytes.withUnsafeBytes { hash64($0) }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// The ETag of an encoded form (gzip) of the content `etag` names: weak when `etag` is strong
    /// (RFC 9110 section 8.8.1: the encoded bytes differ), as nginx does, so `If-None-Match`
    /// still matches under weak comparison.
    public static func forEncoding(_ etag: String) -> String {
        etag.hasPrefix("\"") ? "W/" + etag : etag
    }

    /// Whether an `If-None-Match` value matches `etag`: `*`, or any listed tag equal under weak
    /// comparison (the `W/` prefix ignored), as a GET or HEAD evaluates it.
    public static func ifNoneMatch(_ header: String, matches etag: String) -> Bool {
        let trimmed = header.trimmingOWS()
        if trimmed == "*" { return true }
        let target = opaque(Substring(etag))
        for item in header.split(separator: ",") where opaque(item.trimmingOWS()) == target {
            return true
        }
        return false
    }

    /// Whether `request` is a GET or HEAD whose `If-None-Match` matches `etag` (answer 304).
    public static func isNotModified(_ request: HTTPRequest, etag: String) -> Bool {
        guard request.method == .get || request.method == .head else { return false }
        var matched = false
        request.headers.forEachValue(named: "If-None-Match") { value in
            matched = ifNoneMatch(value, matches: etag)
            return !matched
        }
        return matched
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }

    static func hash64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier1: UInt64 = 0x9E37_79B9_7F4A_7C15
        let multiplier2: UInt64 = 0xBF58_476D_1CE4_E5B9
        var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ (UInt64(bytes.count) &* multiplier1)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ (word &* multiplier2))
            hash = ((hash << 31) | (hash >> 33)) &* multiplier1
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash ^= tail &* multiplier2
        hash ^= hash >> 30
        hash &*= multiplier2
        hash ^= hash >> 27
        hash &*= 0x94D0_49BB_1331_11EB
        hash ^= hash >> 31
        return hash
    }
}
