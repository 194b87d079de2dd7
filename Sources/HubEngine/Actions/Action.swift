import HubModel

/// A custom action: created fresh for every perform by its namespace's factory (S143).
public protocol Action: Sendable {
    /// Performs the action. Throwing is a failure the caller reports (e.g. an upstream 5xx).
    func perform(context: ActionContext) async throws -> ActionResult
}
