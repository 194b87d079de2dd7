/// ASCII case-insensitive byte comparison, the rule of HTTP field names and tokens.
enum ASCII {
    /// Whether two bytes are equal, ignoring the case of ASCII letters.
    @inline(__always)
    static func caseInsensitiveEqual(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }

    /// Whether two byte runs are equal, ignoring the case of ASCII letters.
    static func caseInsensitiveEquals(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where !caseInsensitiveEqual(lhs[index], rhs[index]) {
            return false
        }
        return true
    }

    /// Whether `bytes` equal `literal`, ignoring the case of ASCII letters.
    static func caseInsensitiveEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        caseInsensitiveEquals(bytes, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
