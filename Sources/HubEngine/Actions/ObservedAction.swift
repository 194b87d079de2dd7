import HubModel

/// An action as observers see it: its context and what became of it (S128).
public struct ObservedAction: Sendable {
    public let context: ActionContext
    /// `true` when the action ran and reported success.
    public let performed: Bool
    /// `true` when the handler vetoed it (it did not run).
    public let vetoed: Bool
}
