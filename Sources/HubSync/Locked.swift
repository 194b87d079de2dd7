#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `pthread_mutex_t`: the lock owns the value, so it cannot be touched
/// without it.
///
/// Why not `Synchronization.Mutex`: on Linux its contended path hands the lock over inside
/// the kernel (futex), where ThreadSanitizer cannot see the happens-before edge, so every
/// contended `Mutex` is reported as a data race under `swift test --sanitize=thread`.
/// pthread mutexes are intercepted by TSan, so races it reports here are real.
///
/// `@unchecked Sendable` is sound because `value` is only read or written inside
/// `withLock`, between `pthread_mutex_lock` and `pthread_mutex_unlock` on a mutex that lives
/// at a fixed heap address for the lifetime of the object (it is never moved or copied), and
/// the value goes in and out only as `sending`, exactly like `Mutex`.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// `sending`: the caller gives the value up, so a non-`Sendable` value is reachable only
    /// through the lock (as with `Mutex`).
    public init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock()
        defer { unlock() }
        return try body(&valueStorage)
    }

    @usableFromInline var valueStorage: Value {
        _read { yield value }
        _modify { yield &value }
    }

    @usableFromInline func lock() {
        pthread_mutex_lock(mutex)
    }

    @usableFromInline func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
