import HubModel

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
    /// State that outlasts the process (``StateAccess``): a write here re-runs the operations
    /// that read the key, in this session and in every other one that follows it.
    public let state: StateAccess

    /// The verified user the session belongs to; throws `authenticationRequired` for an anonymous one (401).
    public var user: HubUser {
        get throws(EngineError) {
            guard let user = request.user else { throw HubUser.required }
            return user
        }
    }

    public init(
        trigger: ActionTrigger, actionIdentifier: ComponentIdentifier, customData: JSONObject?, feature: FeatureInfo,
        viewURI: String, viewModel: ViewModel, componentModel: ComponentModel?, sessionID: String, request: ViewRequest,
        state: StateAccess? = nil
    ) {
        self.state = state ?? StateAccess(store: MemoryStateStore(), sessionID: sessionID)
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
            request: request, state: state)
    }
}
