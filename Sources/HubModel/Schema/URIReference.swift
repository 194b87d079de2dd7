/// Validation of URI strings in content (S9).
///
/// HubFramework drops a URL field whose string `NSURL` cannot parse. The server uses the
/// RFC 3986 grammar instead of Foundation (whose leniency differs across platforms): a
/// non-empty URI reference made of unreserved, reserved and `%HH` characters. `"é"`, spaces
/// and `%zz` are invalid.
public enum URIReference {
    /// `true` when `string` is a syntactically valid, non-empty RFC 3986 URI reference.
    public static func isValid(_ string: String) -> Bool {
        var utf8 = string.utf8.makeIterator()
        var count = 0
        while let byte = utf8.next() {
            count += 1
            if byte == UInt8(ascii: "%") {
                guard let high = utf8.next(), let low = utf8.next(), isHex(high), isHex(low) else { return false }
                count += 2
                continue
            }
            guard isAllowed(byte) else { return false }
        }
        return count > 0
    }

    @inline(__always) private static func isHex(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default: return false
        }
    }

    @inline(__always) private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        // unreserved punctuation, gen-delims, sub-delims
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            return true
        default: return false
        }
    }
}
