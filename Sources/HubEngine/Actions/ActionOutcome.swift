import HubModel

/// The answer to an action (`POST /action`).
public struct ActionOutcome: Sendable {
    /// Whether an action was performed (vetoed actions report `false`).
    public let performed: Bool
    /// The view after the chain settled.
    public let state: ViewState
}
