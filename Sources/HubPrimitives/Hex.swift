/// Lowercase hexadecimal digits, for ids built byte by byte (request, trace and span ids).
public enum Hex {
    /// The ASCII digit of `nibble` (0...15): `0`-`9`, `a`-`f`.
    @inlinable
    public static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}
