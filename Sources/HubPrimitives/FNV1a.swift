/// 64-bit FNV-1a: a fast, stable hash (the same across runs, processes and platforms, unlike
/// `Hasher`), for rollout buckets, fingerprints and keys that must not depend on the process.
/// Not a cryptographic hash.
public enum FNV1a {
    /// The hash of no bytes (FNV's offset basis): where a hash starts.
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of `bytes`; with `hash`, of the bytes that hash was made of followed by `bytes`
    /// (so parts hashed in turn give the hash of their concatenation).
    public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes, continuing hash: UInt64 = offsetBasis) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The hash of a string's UTF-8 bytes (continuing `hash`, as ``hash(_:continuing:)``), read
    /// in place when the string is contiguous.
    public static func hash(_ text: String, continuing hash: UInt64 = offsetBasis) -> UInt64 {
        text.utf8.withContiguousStorageIfAvailable { Self.hash($0, continuing: hash) } ?? Self.hash(text.utf8, continuing: hash)
    }
}
