import HubModel

/// What one drained queue of a session did, for observers (metrics, logs).
public struct ChainReport: Sendable {
    public let featureIdentifier: String
    /// The latest timing of every operation (memoized ones have zero duration).
    public let timings: [OperationTiming]
    /// The failure, when the last operation failed.
    public let failure: ViewLoadError?
}
