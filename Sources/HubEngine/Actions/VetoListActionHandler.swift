import HubModel

/// A handler that vetoes a fixed set of actions (config `actionHandler.veto`).
public struct VetoListActionHandler: ActionHandler {
    public let vetoed: Set<ComponentIdentifier>

    public init(vetoed: Set<ComponentIdentifier>) {
        self.vetoed = vetoed
    }

    public func shouldVeto(_ context: ActionContext) async -> Bool {
        vetoed.contains(context.actionIdentifier)
    }
}
