import Synchronization

/// `Synchronization.Mutex` whose hand-over ThreadSanitizer can see.
///
/// On Linux a contended `Mutex` passes ownership inside the kernel (`FUTEX_LOCK_PI` /
/// `FUTEX_UNLOCK_PI`); the waiter wakes up owning the lock without a user-space acquire, so
/// ThreadSanitizer, which only sees atomics and intercepted pthread calls, reports false races
/// between two critical sections of the same lock. Every critical section here starts and ends
/// with an acquire-release increment of `handOff`: the exit of one section and the entry of the
/// next are then an explicit release/acquire pair on one atomic, an edge TSan (and the memory
/// model) recognise. Uncontended it costs two atomic adds on a cache line the lock already owns.
struct Locked<Value: ~Copyable>: ~Copyable {
    private let mutex: Mutex<Value>
    private let handOff = Atomic<UInt32>(0)

    init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value. Keep it short and free of I/O and of
    /// continuation resumes (return what to do and do it after).
    borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            handOff.add(1, ordering: .acquiringAndReleasing)
            defer { handOff.add(1, ordering: .acquiringAndReleasing) }
            return try body(&value)
        }
    }
}

extension Locked: Sendable where Value: ~Copyable {}
