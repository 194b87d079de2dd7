import HubCrypto
/// Keyed identifiers of rendered views: the strong ETag of `GET /view` and the `id:` of view
/// and patch events. A view's tag is HMAC-SHA256 of its JSON bytes, truncated to 128 bits
/// (32 hex digits), under a key derived from the session keyring's signing key
/// (``SessionKeys/viewTagKey``): replicas sharing `HUB_SESSION_KEYS` give a view the same tag,
/// and without the key nobody can make two different views share one (an unkeyed 64-bit hash
/// can be inverted, so a crafted view could take the tag of another user's, docs/API.md "ETag").
public final class ViewTags: Sendable {
    private let contexts: MACContexts
    private static let hexDigits = Array("0123456789abcdef".utf8)
    /// Bytes of the MAC kept in a tag.
    public static let tagBytes = 16

    /// Tags under `keys`' derived view key.
    public init(keys: SessionKeys) {
        contexts = MACContexts(keys: [keys.viewTagKey])
    }

    /// The quoted strong ETag of `bytes` (`"` + 32 lowercase hex digits + `"`).
    public func etag(for bytes: [UInt8]) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { mac in
            let ok = bytes.withUnsafeBufferPointer { message in
                contexts.mac(prefix: UnsafeBufferPointer(start: nil, count: 0), message, key: 0, into: mac.baseAddress!)
            }
            // OpenSSL never failed here; if it did, a tag of zeros would make every view share one
            // (a wrong patch base): fail loudly instead of silently.
            precondition(ok, "HMAC-SHA256 failed")
            return String(unsafeUninitializedCapacity: 2 + 2 * Self.tagBytes) { out in
                out[0] = UInt8(ascii: "\"")
                for index in 0..<Self.tagBytes {
                    out[1 + 2 * index] = Self.hexDigits[Int(mac[index] >> 4)]
                    out[2 + 2 * index] = Self.hexDigits[Int(mac[index] & 0x0F)]
                }
                out[1 + 2 * Self.tagBytes] = UInt8(ascii: "\"")
                return 2 + 2 * Self.tagBytes
            }
        }
    }
}
