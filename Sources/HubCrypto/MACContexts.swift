import CCrypto
import HubSync

/// HMAC-SHA256 contexts for a list of keys, one set per thread stripe (``Striped``): a context
/// keeps its key's schedule, so a MAC costs one pass over the message (measured 0.5 µs instead
/// of 2 µs for OpenSSL's one-shot `HMAC()`, which looks the algorithm up and keys it each call).
/// `GET /view?uri=` signs a token per request, so this is on a hot path.
public final class MACContexts: Sendable {
    /// One stripe's contexts, made on first use; freed with the stripe.
    private final class Stripe {
        let keys: [[UInt8]]
        var contexts: [OpaquePointer?]

        init(keys: [[UInt8]]) {
            self.keys = keys
            contexts = Array(repeating: nil, count: keys.count)
        }

        func context(_ index: Int) -> OpaquePointer? {
            if let context = contexts[index] { return context }
            let made = keys[index].withUnsafeBytes { hub_hmac_sha256_new($0.baseAddress, $0.count) }
            contexts[index] = made
            return made
        }

        deinit {
            for context in contexts { hub_hmac_sha256_free(context) }
        }
    }

    private let stripes: Striped<Stripe>

    public init(keys: [[UInt8]]) {
        stripes = Striped { Stripe(keys: keys) }
    }

    /// Writes the MAC of `prefix` followed by `message` under key `index` into `out` (32 bytes);
    /// `false` when OpenSSL failed (never seen: the caller fails closed).
    public func mac(
        prefix: UnsafeBufferPointer<UInt8>, _ message: UnsafeBufferPointer<UInt8>, key index: Int,
        into out: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        // The pointers are the caller's buffers, valid for this call and only read (the output
        // written) inside it, synchronously: nothing of them outlives the lock or crosses a task.
        // They cross into the lock as addresses, since a non-Sendable pointer would tie the
        // stripe to the caller's region.
        let addresses = (
            prefix: UInt(bitPattern: prefix.baseAddress), prefixCount: prefix.count,
            message: UInt(bitPattern: message.baseAddress), messageCount: message.count, out: UInt(bitPattern: out))
        return stripes.current.withLock { stripe -> Bool in
            guard let context = stripe.context(index) else { return false }
            return hub_hmac_sha256_compute2(
                context, UnsafePointer(bitPattern: addresses.prefix), addresses.prefixCount,
                UnsafePointer(bitPattern: addresses.message), addresses.messageCount,
                UnsafeMutablePointer(bitPattern: addresses.out)) == 1
        }
    }

    /// Whether the 32-byte MACs `expected` and `presented` are equal, compared in constant time
    /// (OpenSSL's `CRYPTO_memcmp`): the time tells nothing of how many bytes matched.
    public static func equal(_ expected: UnsafePointer<UInt8>, _ presented: [UInt8]) -> Bool {
        presented.count == 32 && hub_constant_time_compare(expected, presented, 32) == 0
    }
}
