import HubModel

/// A factory from a dictionary of closures, one per action name.
public struct ClosureActionFactory: ActionFactory {
    let actions: [String: @Sendable (ActionContext) async throws -> ActionResult]

    public init(_ actions: [String: @Sendable (ActionContext) async throws -> ActionResult]) {
        self.actions = actions
    }

    public func makeAction(name: String) -> (any Action)? {
        actions[name].map(ClosureAction.init)
    }
}
