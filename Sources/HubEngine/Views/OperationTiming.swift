import HubModel

/// How long one operation took in the latest run, and whether it failed.
public struct OperationTiming: Sendable, Equatable {
    public let name: String
    public let duration: Duration
    public let failed: Bool
    /// `true` when the result came from the chain memo, not from running the operation.
    public let memoized: Bool

    public init(name: String, duration: Duration, failed: Bool, memoized: Bool = false) {
        self.name = name
        self.duration = duration
        self.failed = failed
        self.memoized = memoized
    }
}
