/// Session identifiers: 128 bits from the system's secure generator, base64url without
/// padding (22 characters), so they are unguessable and safe in URLs and headers.
public enum SessionIdentifier {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A new random identifier.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes: [UInt8] = []
        bytes.reserveCapacity(22)
        // 128 bits as 21 full 6-bit groups plus 2 remaining bits.
        var bitsLeft = 128
        var value = (high, low)
        while bitsLeft > 0 {
            let take = min(6, bitsLeft)
            let index = Int(value.0 >> (64 - UInt64(take)))
            bytes.append(alphabet[index << (6 - take)])
            value = (value.0 << UInt64(take) | value.1 >> (64 - UInt64(take)), value.1 << UInt64(take))
            bitsLeft -= take
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `true` when `text` has the shape of an identifier (22 base64url characters).
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 22 && text.utf8.allSatisfy { alphabet.contains($0) }
    }
}
