import HubModel

/// A session's view as of one moment: what `GET /view` answers and SSE sends.
public struct ViewState: Sendable {
    /// The current view model; after a failed reload it is still the previous one (S95).
    public let viewModel: ViewModel?
    /// Increases each time the view model changes.
    public let version: Int
    /// Set when the latest chain run failed (the last operation's error, S92).
    public let failure: ViewLoadError?
    /// Per-operation timings of the latest run, in chain order.
    public let timings: [OperationTiming]

    public init(viewModel: ViewModel?, version: Int, failure: ViewLoadError?, timings: [OperationTiming]) {
        self.viewModel = viewModel
        self.version = version
        self.failure = failure
        self.timings = timings
    }

    /// `true` when the latest run was answered from the chain memo: the view model is then the
    /// memo's, shared by every session with the same inputs.
    public var isMemoized: Bool { !timings.isEmpty && timings.allSatisfy(\.memoized) }
}

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

/// The answer to an action (`POST /action`).
public struct ActionOutcome: Sendable {
    /// Whether an action was performed (vetoed actions report `false`).
    public let performed: Bool
    /// The view after the chain settled.
    public let state: ViewState
}

/// What one drained queue of a session did, for observers (metrics, logs).
public struct ChainReport: Sendable {
    public let featureIdentifier: String
    /// The latest timing of every operation (memoized ones have zero duration).
    public let timings: [OperationTiming]
    /// The failure, when the last operation failed.
    public let failure: ViewLoadError?
}
