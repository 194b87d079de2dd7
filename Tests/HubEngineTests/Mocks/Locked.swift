#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lock-protected state for the test doubles, with the `withLock` shape of `Mutex`.
///
/// Not `Synchronization.Mutex`: on Linux its contended path hands the lock over inside the
/// kernel (PI futex, in the uninstrumented runtime), which ThreadSanitizer cannot see, so a
/// contended `Mutex` is reported as a "Swift access race" although every access is locked
/// (observed with CounterOperation in ConcurrencyTests). TSan intercepts `pthread_mutex_*`.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
