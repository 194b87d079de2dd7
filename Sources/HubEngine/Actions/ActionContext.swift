import HubModel

/// How an action came about (section 0 `HUBActionTrigger`).
public enum ActionTrigger: String, Sendable, Hashable {
    /// A component was selected; its target's actions are tried in order (S146).
    case selection
    /// The client performed a named action, optionally on a component (S151).
    case component
    /// A content operation performed it (S152).
    case contentOperation
    /// An action chained it (S156). HubServer reports `chained`, a deliberate divergence
    /// from S157, where the original trigger was copied.
    case chained
}

/// Everything an action, its handler and observers see (S153).
public struct ActionContext: Sendable {
    public let trigger: ActionTrigger
    /// The action being performed.
    public let actionIdentifier: ComponentIdentifier
    public let customData: JSONObject?
    public let feature: FeatureInfo
    public let viewURI: String
    /// The view model the client was looking at (the session's current one).
    public let viewModel: ViewModel
    /// The component the action concerns; `nil` for content-operation actions (S152).
    public let componentModel: ComponentModel?
    public let sessionID: String
    public let request: ViewRequest

    public init(
        trigger: ActionTrigger, actionIdentifier: ComponentIdentifier, customData: JSONObject?, feature: FeatureInfo,
        viewURI: String, viewModel: ViewModel, componentModel: ComponentModel?, sessionID: String, request: ViewRequest
    ) {
        self.trigger = trigger
        self.actionIdentifier = actionIdentifier
        self.customData = customData
        self.feature = feature
        self.viewURI = viewURI
        self.viewModel = viewModel
        self.componentModel = componentModel
        self.sessionID = sessionID
        self.request = request
    }

    /// The same context for a chained action (S156): new identifier and data, trigger `chained`.
    func chained(to identifier: ComponentIdentifier, customData: JSONObject?) -> ActionContext {
        ActionContext(
            trigger: .chained, actionIdentifier: identifier, customData: customData, feature: feature,
            viewURI: viewURI, viewModel: viewModel, componentModel: componentModel, sessionID: sessionID,
            request: request)
    }
}

/// An action as observers see it: its context and what became of it (S128).
public struct ObservedAction: Sendable {
    public let context: ActionContext
    /// `true` when the action ran and reported success.
    public let performed: Bool
    /// `true` when the handler vetoed it (it did not run).
    public let vetoed: Bool
}
