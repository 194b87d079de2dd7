import Synchronization

/// A value behind a lock: the lock owns the value, so it cannot be touched without it. The one
/// lock of every module (and of the tests); a class, so it is shared by reference.
///
/// A `Synchronization.Mutex` (futex-based, no allocation) plus a hand-off marker: each critical
/// section starts with an acquire load and ends with a release store of one atomic. On Linux a
/// contended `Mutex` passes ownership inside the kernel (`FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI`), where
/// ThreadSanitizer, which sees only atomics and intercepted pthread calls, cannot see the
/// happens-before edge, and reports every contended `Mutex` as a data race; the marker is that
/// edge, explicit (the store of one holder is the value the next holder's load reads). On x86
/// both are plain moves. It measured faster than the pthread mutex this type was before, and
/// as fast as a bare `Mutex` (`make bench-sync`; figures in docs/PERFORMANCE.md).
///
/// Never make `Value` a function type (or an optional of one): a function stored as a generic
/// value is reabstracted on each `inout` access, so every `withLock` wraps it in two more thunks
/// and its calls grow slower with each access. Put the function in a struct.
///
/// `Sendable` without `@unchecked`: `Mutex` and `Atomic` are `Sendable`, and the value goes in
/// and out only as `sending`.
public final class Locked<Value>: Sendable {
    @usableFromInline let mutex: Mutex<Value>
    @usableFromInline let handOff = Atomic<UInt32>(0)

    /// `sending`: the caller gives the value up, so a non-`Sendable` value is reachable only
    /// through the lock.
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value. Keep it short and O(1), free of I/O and
    /// of continuation resumes (return what to do and do it after).
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            _ = handOff.load(ordering: .acquiring)
            defer { handOff.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }
}
