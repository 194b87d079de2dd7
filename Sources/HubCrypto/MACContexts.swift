import CCrypto

/// HMAC-SHA256 key schedules for a list of keys: each key's padded blocks hashed once, so a MAC
/// costs one pass over the message plus one block. A schedule is immutable once made and a MAC
/// works on stack copies of it, so any number of threads sign at once with no lock and no
/// allocation (`GET /view?uri=` signs a token per request: this is on a hot path).
public final class MACContexts: Sendable {
    private let schedules: [hub_hmac_sha256_key]
    /// Whether every key was scheduled (OpenSSL never failed here; a MAC fails closed if it did).
    private let scheduled: Bool

    public init(keys: [[UInt8]]) {
        var scheduled = true
        schedules = keys.map { key in
            var schedule = hub_hmac_sha256_key()
            scheduled = key.withUnsafeBytes { hub_hmac_sha256_key_init(&schedule, $0.baseAddress, $0.count) } == 1 && scheduled
            return schedule
        }
        self.scheduled = scheduled
    }

    /// Writes the MAC of `prefix` followed by `message` under key `index` into `out` (32 bytes);
    /// `false` when OpenSSL failed (never seen: the caller fails closed).
    public func mac(
        prefix: UnsafeBufferPointer<UInt8>, _ message: UnsafeBufferPointer<UInt8>, key index: Int,
        into out: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        // A key index out of range fails closed rather than reading past the schedules.
        guard scheduled, schedules.indices.contains(index) else { return false }
        return schedules.withUnsafeBufferPointer { schedules in
            hub_hmac_sha256_keyed2(
                schedules.baseAddress! + index, prefix.baseAddress, prefix.count, message.baseAddress, message.count, out) == 1
        }
    }

    /// Whether the 32-byte MACs `expected` and `presented` are equal, compared in constant time
    /// (OpenSSL's `CRYPTO_memcmp`): the time tells nothing of how many bytes matched.
    public static func equal(_ expected: UnsafePointer<UInt8>, _ presented: [UInt8]) -> Bool {
        presented.count == 32 && hub_constant_time_compare(expected, presented, 32) == 0
    }
}
