import HubModel

/// A custom action: created fresh for every perform by its namespace's factory (S143).
public protocol Action: Sendable {
    /// Performs the action. Throwing is a failure the caller reports (e.g. an upstream 5xx).
    func perform(context: ActionContext) async throws -> ActionResult
}

/// What performing an action produced.
public struct ActionResult: Sendable, Equatable {
    /// Whether the action was performed.
    public var performed: Bool
    /// An action to perform next through the same pipeline (S156).
    public var chainedAction: ComponentIdentifier?
    /// Custom data for the chained action.
    public var chainedCustomData: JSONObject?
    /// Re-run the whole chain afterwards (`hub:reload`).
    public var reloadsView: Bool
    /// Load the next page afterwards (`hub:next-page`).
    public var loadsNextPage: Bool

    public init(
        performed: Bool, chainedAction: ComponentIdentifier? = nil, chainedCustomData: JSONObject? = nil,
        reloadsView: Bool = false, loadsNextPage: Bool = false
    ) {
        self.performed = performed
        self.chainedAction = chainedAction
        self.chainedCustomData = chainedCustomData
        self.reloadsView = reloadsView
        self.loadsNextPage = loadsNextPage
    }

    public static let performed = ActionResult(performed: true)
    public static let notPerformed = ActionResult(performed: false)
}

/// Creates the actions of one namespace by name (S142, S143).
public protocol ActionFactory: Sendable {
    /// A new action for `name`, or `nil` when the factory has no such action.
    func makeAction(name: String) -> (any Action)?
}

/// Asked before an action runs; returning `true` vetoes it: the action is not executed and
/// reports `performed: false` (DESIGN.md's departure from S145). Observers still see it (S128).
public protocol ActionHandler: Sendable {
    func shouldVeto(_ context: ActionContext) async -> Bool
}

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
