import Synchronization

/// A value that goes up and down (Prometheus `gauge`). Lock-free.
public final class Gauge: Sendable {
    private let storage = Atomic<Int64>(0)

    init() {}

    public func set(_ value: Int64) { storage.store(value, ordering: .relaxed) }
    public func increment(by amount: Int64 = 1) { storage.add(amount, ordering: .relaxed) }
    public func decrement(by amount: Int64 = 1) { storage.subtract(amount, ordering: .relaxed) }

    public var value: Int64 { storage.load(ordering: .relaxed) }
}
