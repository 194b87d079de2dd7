import HubCrypto
#if canImport(Glibc)
import Glibc
#endif
import HubPrimitives

/// Session identifiers: 128 bits from the system's secure generator, base64url without
/// padding (22 characters), so they are unguessable and safe in URLs and headers.
public enum SessionIdentifier {

    /// A new random identifier.
    public static func make() -> String {
        let (high, low) = SecureRandom.next128()
        // The 16 bytes, most significant first, as base64url straight into the string's storage.
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { raw in
            String(unsafeUninitializedCapacity: Base64URL.encodedCount(16)) { text in
                raw.withMemoryRebound(to: UInt8.self) { Base64URL.write($0, into: text, at: 0) }
            }
        }
    }

    /// A tag that names a session in logs without revealing it: the identifier is a bearer
    /// credential, so logs carry 64 bits of its FNV-1a hash (16 hex digits) instead. Equal ids
    /// give equal tags, so lines of one session can still be correlated.
    public static func logTag(_ id: String) -> String {
        let hex = String(FNV1a.hash(id), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `true` when `text` has the shape of an identifier (22 base64url characters).
    public static func isWellFormed(_ text: String) -> Bool {
        isWellFormed(text.utf8.prefix(23))
    }

    /// `true` when `bytes` are an identifier's (22 base64url characters).
    @inlinable
    public static func isWellFormed(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count == 22 && bytes.allSatisfy(isIdentifierByte)
    }

    /// Whether `byte` is a base64url character (the identifier's alphabet).
    @inlinable @inline(__always)
    public static func isIdentifierByte(_ byte: UInt8) -> Bool {
        let letter = byte | 0x20
        return (letter >= UInt8(ascii: "a") && letter <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
