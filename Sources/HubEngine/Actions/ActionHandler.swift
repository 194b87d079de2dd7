import HubModel

/// Asked before an action runs; returning `true` vetoes it: the action is not executed and
/// reports `performed: false` (DESIGN.md's departure from S145). Observers still see it (S128).
public protocol ActionHandler: Sendable {
    func shouldVeto(_ context: ActionContext) async -> Bool
}
