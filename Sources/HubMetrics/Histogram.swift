import HubPrimitives
import Synchronization

/// Observations counted into cumulative buckets (Prometheus `histogram`), in seconds by
/// convention. Lock-free: one atomic counter per bucket, the sum kept in microunits.
public final class Histogram: Sendable {
    /// Upper bounds, ascending; `+Inf` is implicit.
    public let bounds: [Double]
    private let buckets: [Counter]
    private let total = Atomic<UInt64>(0)
    /// Sum of observations in millionths, so it fits an integer atomic.
    private let sumMicros = Atomic<UInt64>(0)

    /// Request-latency buckets from 0.5 ms to 10 s.
    public static let defaultBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    init(bounds: [Double]) {
        self.bounds = bounds.sorted()
        self.buckets = bounds.map { _ in Counter() }
    }

    /// Records one observation.
    public func observe(_ value: Double) {
        if let index = bounds.firstIndex(where: { value <= $0 }) {
            buckets[index].increment()
        }
        total.add(1, ordering: .relaxed)
        sumMicros.add(UInt64(max(0, value) * 1_000_000), ordering: .relaxed)
    }

    /// Records a duration in seconds.
    public func observe(_ duration: Duration) {
        observe(duration.inSeconds)
    }

    /// Observations so far.
    public var count: UInt64 { total.load(ordering: .relaxed) }
    /// Sum of observations.
    public var sum: Double { Double(sumMicros.load(ordering: .relaxed)) / 1_000_000 }

    /// Cumulative counts per bound (the Prometheus `le` series, without `+Inf`).
    public var cumulativeCounts: [UInt64] {
        var running: UInt64 = 0
        return buckets.map { bucket in
            running += bucket.value
            return running
        }
    }
}
