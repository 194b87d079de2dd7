import HubModel

/// How long one operation took in the latest run, and whether it failed.
public struct OperationTiming: Sendable, Equatable {
    public let name: String
    public let duration: Duration
    public let failed: Bool
    /// `true` when the result came from the chain memo, not from running the operation.
    public let memoized: Bool
    /// The age in seconds of the content the operation built from, when it stood in for a
    /// failed or refreshing source (``StaleContent/report(ageSeconds:)``); nil for fresh content.
    public let staleAgeSeconds: Int?

    public init(name: String, duration: Duration, failed: Bool, memoized: Bool = false, staleAgeSeconds: Int? = nil) {
        self.name = name
        self.duration = duration
        self.failed = failed
        self.memoized = memoized
        self.staleAgeSeconds = staleAgeSeconds
    }

    /// The timing a memo answer reports for this operation: no time spent, marked memoized.
    public var asMemoized: OperationTiming {
        OperationTiming(name: name, duration: .zero, failed: failed, memoized: true, staleAgeSeconds: staleAgeSeconds)
    }
}
