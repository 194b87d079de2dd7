import HubModel

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
