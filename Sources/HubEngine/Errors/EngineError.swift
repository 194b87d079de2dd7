import HubModel

/// Errors the engine reports to its caller, each with a stable code the server maps to a status.
public struct EngineError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable {
        /// No feature serves the view URI (404).
        case featureNotFound = "feature_not_found"
        /// The session id is unknown or expired (404).
        case sessionNotFound = "session_not_found"
        /// The action's namespace has no factory, or the factory does not know the name (404).
        case actionNotFound = "action_not_found"
        /// The component is not in the session's current view model (404).
        case componentNotFound = "component_not_found"
        /// A feature's factories produced no operation (S85): a configuration error (500).
        case noOperations = "no_operations"
        /// The session has no view model yet (its first load failed).
        case noViewModel = "no_view_model"
        /// The caller's ``SessionAdmission`` refused a new session (429).
        case sessionRefused = "too_many_sessions"
        /// A token this process does not hold, while the shared state store's revocations have
        /// not been loaded yet (it was unavailable since the start): it cannot be told apart from
        /// a revoked one, so it is neither rebuilt nor refused (503, `Retry-After`).
        case revocationsUnavailable = "state_unavailable"
        /// The feature (or its chain: `{user...}`, `forwardIdentity`, `context.user`) needs a
        /// verified user and the request has none (401).
        case authenticationRequired = "authentication_required"
        /// The user's credential lacks claim values the feature's access rule requires (403).
        case insufficientClaims = "insufficient_claims"
    }

    public let code: Code
    public let detail: String
    /// For ``Code/sessionRefused``: when the caller may try again.
    public let retryAfterSeconds: Int?

    public init(_ code: Code, _ detail: String, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
