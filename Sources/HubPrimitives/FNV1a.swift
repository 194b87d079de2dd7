/// 64-bit FNV-1a: a fast, stable hash (the same across runs, processes and platforms, unlike
/// `Hasher`), for rollout buckets, fingerprints and keys that must not depend on the process.
/// Not a cryptographic hash.
public enum FNV1a {
    /// The hash of `bytes`.
    public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The hash of a string's UTF-8 bytes.
    public static func hash(_ text: String) -> UInt64 {
        hash(text.utf8)
    }
}
