#if canImport(Glibc)
import Glibc
#endif

/// Several copies of a value, each behind its own ``Locked``, one picked by the calling thread:
/// threads that touch a shared structure on every request (the event loops) mostly use
/// different copies, and do not queue on one lock or bounce one cache line between cores. Two
/// threads may still share a stripe: each copy is as safe as a single ``Locked`` (which is why
/// this needs no `@unchecked`).
public final class Striped<Value>: Sendable {
    @usableFromInline let stripes: [Locked<Value>]

    /// `count` copies (a power of two, at most 256), each made by `make`.
    public init(count: Int = 8, _ make: () -> sending Value) {
        precondition(count > 0 && count <= 256 && count & (count - 1) == 0, "a power of two up to 256")
        stripes = (0..<count).map { _ in Locked(make()) }
    }

    /// The calling thread's copy. Inlinable, so callers use it specialized: unspecialized, every call looked up the generic
    /// metadata of `[Locked<Value>]` (a hash-table probe in the runtime, per request).
    @inlinable
    public var current: Locked<Value> { stripes[stripeIndex(of: stripes.count)] }
}

extension Striped where Value: Sendable {
    /// The calling thread's copy of a value every thread reads on every request and that rarely
    /// changes (what a config reload installs): each thread takes its own stripe's lock, so the
    /// event loops never write one lock's cache line in turn, as they did with a single
    /// ``Locked``.
    @inlinable
    public var value: Value { current.withLock { $0 } }

    /// Sets every copy to `value`, stripe by stripe: a thread reads the old value or the new one,
    /// and every read after this returns has the new one.
    public func setAll(_ value: Value) {
        for stripe in stripes { stripe.withLock { $0 = value } }
    }
}

/// The calling thread's stripe among `count` (a power of two): its `pthread_t` (a per-thread
/// address) mixed down to an index.
@inlinable
func stripeIndex(of count: Int) -> Int {
    #if canImport(Glibc)
    let thread = UInt64(pthread_self())
    #else
    let thread = UInt64(0)
    #endif
    let mixed = (thread ^ (thread >> 29)) &* 0xBF58_476D_1CE4_E5B9
    return Int(truncatingIfNeeded: mixed >> 56) & (count - 1)
}
