/// Where a component leads: a URI, an initial view model for it, actions, free-form data (1.4).
public struct ComponentTarget: Sendable, Equatable {
    public var uri: String?
    /// Content the next view can show before it loads (`target.view`).
    public var initialViewModel: ViewModel?
    /// Actions performed on selection, in order, without duplicates (S19).
    public var actionIdentifiers: [ComponentIdentifier]
    public var customData: JSONObject?

    public init(
        uri: String? = nil, initialViewModel: ViewModel? = nil, actionIdentifiers: [ComponentIdentifier] = [],
        customData: JSONObject? = nil
    ) {
        self.uri = uri
        self.initialViewModel = initialViewModel
        self.actionIdentifiers = actionIdentifiers
        self.customData = customData
    }
}
