extension Duration {
    /// The duration in seconds (for metrics, logs and JSON).
    @inlinable public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in milliseconds (for `Server-Timing` and logs).
    @inlinable public var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// Whole nanoseconds, saturating at `Int.max` (for deadlines on a monotonic clock).
    @inlinable public var nanoseconds: Int {
        let (seconds, attoseconds) = components
        if seconds > Int64(Int.max / 1_000_000_000 - 1) { return Int.max }
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
