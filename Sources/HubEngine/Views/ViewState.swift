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
