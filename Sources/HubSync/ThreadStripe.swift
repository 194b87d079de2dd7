#if canImport(Glibc)
import Glibc
#endif

/// Picks one of several copies of a shared structure for the calling thread, so threads that
/// each touch it on every request (the event loops) mostly use different copies and locks, and
/// do not queue on one lock or bounce one cache line between cores. Not an ownership rule: two
/// threads may share a stripe, so each stripe still needs its own synchronization.
public enum ThreadStripe {
    /// The calling thread's stripe among `count` (a power of two, at most 256): its `pthread_t`
    /// (a per-thread address) mixed down to an index.
    public static func current(of count: Int) -> Int {
        precondition(count > 0 && count <= 256 && count & (count - 1) == 0, "a power of two up to 256")
        #if canImport(Glibc)
        let thread = UInt64(pthread_self())
        #else
        let thread = UInt64(0)
        #endif
        let mixed = (thread ^ (thread >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 56) & (count - 1)
    }
}
