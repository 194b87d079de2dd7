import HubModel

/// An action from a closure.
public struct ClosureAction: Action {
    let body: @Sendable (ActionContext) async throws -> ActionResult

    public init(_ body: @escaping @Sendable (ActionContext) async throws -> ActionResult) {
        self.body = body
    }

    public func perform(context: ActionContext) async throws -> ActionResult {
        try await body(context)
    }
}
