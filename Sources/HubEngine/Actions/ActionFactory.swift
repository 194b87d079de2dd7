import HubModel

/// Creates the actions of one namespace by name (S142, S143).
public protocol ActionFactory: Sendable {
    /// A new action for `name`, or `nil` when the factory has no such action.
    func makeAction(name: String) -> (any Action)?
}
