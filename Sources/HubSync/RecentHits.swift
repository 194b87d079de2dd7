/// Each thread's last few hits of a shared cache, behind a lock per stripe (``Striped``): a
/// thread that serves the same keys again reads them here instead of taking the cache's one
/// lock, which every event loop would otherwise take on every request (contended, a futex wait
/// each). A stripe keeps at most ``capacity`` values and starts over when full, so the values it
/// keeps alive beyond the cache's own budget are bounded (`capacity` times the stripe count; the
/// last hit is one of them).
///
/// What a value is keyed by must name it for good (an identity, a revision): a value kept here
/// after the cache dropped it is still returned.
public final class RecentHits<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let stripes: Striped<Stripe>
    /// Values each stripe keeps.
    public let capacity: Int

    /// One thread's hits: the last one, compared by equality before any hashing (a loop that
    /// serves one view to many requests in a row hashes nothing), and the rest by key.
    @usableFromInline struct Stripe: Sendable {
        @usableFromInline var lastKey: Key?
        @usableFromInline var lastValue: Value?
        @usableFromInline var table: [Key: Value] = [:]
        @usableFromInline init() {}
    }

    /// Keeps up to `capacity` values per stripe (at least 1).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        stripes = Striped { Stripe() }
    }

    /// The calling thread's stripe's value for `key`.
    @inlinable
    public func value(for key: Key) -> Value? {
        stripes.current.withLock { stripe in
            if let lastKey = stripe.lastKey, lastKey == key { return stripe.lastValue }
            guard let value = stripe.table[key] else { return nil }
            stripe.lastKey = key
            stripe.lastValue = value
            return value
        }
    }

    /// Remembers `value` for `key` in the calling thread's stripe (emptied first when full and
    /// `key` is new).
    @inlinable
    public func remember(_ value: Value, for key: Key) {
        Self.remember(value, for: key, in: stripes.current, capacity: capacity)
    }

    /// The calling thread's stripe, to remember a value into later from wherever it is made (a
    /// miss whose value an async task makes, which may resume on another thread than the one
    /// that will look it up again).
    public var currentStripe: StripeReference { StripeReference(hits: self, stripe: stripes.current) }

    /// One thread's stripe of a ``RecentHits`` (``currentStripe``).
    public struct StripeReference: Sendable {
        let hits: RecentHits
        let stripe: Locked<Stripe>

        /// Keeps `value` for `key` in this stripe, as ``RecentHits/remember(_:for:)`` does in the calling thread's.
        public func remember(_ value: Value, for key: Key) {
            RecentHits.remember(value, for: key, in: stripe, capacity: hits.capacity)
        }
    }

    @usableFromInline
    static func remember(_ value: Value, for key: Key, in stripe: Locked<Stripe>, capacity: Int) {
        stripe.withLock { stripe in
            if stripe.table.count >= capacity, stripe.table[key] == nil { stripe.table.removeAll(keepingCapacity: true) }
            stripe.table[key] = value
            stripe.lastKey = key
            stripe.lastValue = value
        }
    }

    /// Forgets every stripe's values (the cache dropped values that are still keyed the same).
    public func removeAll() {
        for stripe in stripes.stripes { stripe.withLock { $0 = Stripe() } }
    }
}
