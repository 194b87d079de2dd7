import Glibc
import Synchronization

/// A one-way gate for a ``TestUpstream`` handler: ``wait(atMost:)`` blocks the handler's thread
/// until the test calls ``open()``, so an upstream answers when the test has seen what it waits
/// for, not after a fixed delay a loaded machine could outlast.
public final class ThreadGate: Sendable {
    private let isOpen = Atomic<Bool>(false)

    public init() {}

    /// Lets every waiting and later ``wait(atMost:)`` through.
    public func open() { isOpen.store(true, ordering: .sequentiallyConsistent) }

    /// Blocks until the gate opens or `limit` passes (a safety net, never the expected path).
    public func wait(atMost limit: Duration = .seconds(60)) {
        let deadline = ContinuousClock.now + limit
        while !isOpen.load(ordering: .sequentiallyConsistent), ContinuousClock.now < deadline { usleep(1000) }
    }
}
