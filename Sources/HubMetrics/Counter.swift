import Synchronization

/// A monotonically increasing count (Prometheus `counter`). Lock-free.
public final class Counter: Sendable {
    private let storage = Atomic<UInt64>(0)

    init() {}

    /// Adds `amount` (default 1).
    public func increment(by amount: UInt64 = 1) {
        storage.add(amount, ordering: .relaxed)
    }

    public var value: UInt64 { storage.load(ordering: .relaxed) }
}
