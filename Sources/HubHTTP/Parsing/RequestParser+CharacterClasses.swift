/// The byte classes the request line and fields are checked against: each a 128-bit set of
/// ASCII bytes (two words, bit `b` for byte `b`), one shift and mask per byte instead of a chain
/// of range comparisons. `RequestParserTests` checks every byte value against the grammar.
extension RequestParser {
    /// Bytes of `uri-host [":" port]` (RFC 3986 reg-name, IP literals, pct-encoding):
    /// ALPHA DIGIT `-._~!$&'()*+,;=:[]%`.
    static func isHostByte(_ byte: UInt8) -> Bool {
        isMember(byte, low: 0x2FFF_7FF2_0000_0000, high: 0x47FF_FFFE_AFFF_FFFE)
    }

    /// tchar (RFC 9110 section 5.6.2): ALPHA DIGIT ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        isMember(byte, low: 0x03FF_6CFA_0000_0000, high: 0x57FF_FFFF_C7FF_FFFE)
    }

    @inline(__always)
    private static func isMember(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        switch byte >> 6 {
        case 0: low >> UInt64(byte & 63) & 1 != 0
        case 1: high >> UInt64(byte & 63) & 1 != 0
        default: false
        }
    }
}
