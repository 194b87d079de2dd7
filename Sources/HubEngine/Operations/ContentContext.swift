import HubModel

/// Everything an operation knows about the run it is part of (S97, S130).
public struct ContentContext: Sendable {
    /// The view URI (query included).
    public let viewURI: String
    /// The feature this view belongs to (S97).
    public let feature: FeatureInfo
    /// The connectivity the session had when the chain started (S110).
    public let connectivity: Connectivity
    /// The error of the operation just before this one in its latest run, or in pagination
    /// mode this operation's own last error (S93, S123). `nil` for operation 0.
    public let previousError: (any Error)?
    /// 0 for the main content, 1, 2, ... for following pages (S122).
    public let pageIndex: Int
    /// The client request that opened or last loaded the session.
    public let request: ViewRequest
    /// The session's identifier.
    public var sessionID: String {
        sessionIDReads?.note()
        return storedSessionID
    }
    private let storedSessionID: String
    /// Set on a context made to ask for a memo key: notes whether the key read ``sessionID``.
    let sessionIDReads: SessionIDReads?
    /// The verified user the session belongs to. Throws `authenticationRequired` for an anonymous
    /// one (the view is then 401). Read in ``ContentOperation/memoizationKey(context:)`` too when
    /// the operation's result depends on the user: the chain memo then keys the run per user.
    public var user: HubUser {
        get throws(EngineError) {
            sessionIDReads?.noteUser()
            guard let user = request.user else { throw HubUser.required }
            return user
        }
    }
    /// This operation's position in the chain. Set by the engine only (a memo key asks every
    /// operation in one context, moved along the chain).
    public internal(set) var operationIndex: Int
    /// Performs actions on behalf of the operation (S129, S152). A context kept after its run
    /// performs in its session while the session lives, and nothing once it is gone (it does not
    /// keep the session alive).
    public let actions: ActionPerformer
    /// State that outlasts the process (``StateAccess``): what the operation reads here is
    /// followed, and a change re-runs the chain from this operation.
    public let state: StateAccess

    public init(
        viewURI: String, feature: FeatureInfo, connectivity: Connectivity, previousError: (any Error)?,
        pageIndex: Int, request: ViewRequest, sessionID: String, operationIndex: Int,
        actions: ActionPerformer = .none, state: StateAccess? = nil
    ) {
        self.init(
            viewURI: viewURI, feature: feature, connectivity: connectivity, previousError: previousError,
            pageIndex: pageIndex, request: request, sessionID: sessionID, operationIndex: operationIndex,
            actions: actions, state: state, sessionIDReads: nil)
    }

    init(
        viewURI: String, feature: FeatureInfo, connectivity: Connectivity, previousError: (any Error)?,
        pageIndex: Int, request: ViewRequest, sessionID: String, operationIndex: Int,
        actions: ActionPerformer, state: StateAccess?, sessionIDReads: SessionIDReads?
    ) {
        self.state = state ?? StateAccess(store: MemoryStateStore(), sessionID: sessionID)
        self.viewURI = viewURI
        self.feature = feature
        self.connectivity = connectivity
        self.previousError = previousError
        self.pageIndex = pageIndex
        self.request = request
        self.storedSessionID = sessionID
        self.sessionIDReads = sessionIDReads
        self.operationIndex = operationIndex
        self.actions = actions
    }
}
