/// Who may open a feature's views (`"access"` in a feature's config): anyone (no rule), any
/// verified user, or a user whose credential holds listed claim values.
public struct AccessRule: Sendable, Equatable {
    /// Claims that must each hold one of their listed values (an array claim matches on any
    /// member); empty: any verified user.
    public let claims: [String: [String]]

    public init(claims: [String: [String]] = [:]) {
        self.claims = claims
    }

    /// Whether `user` may use the feature; `nil` user: anonymous.
    public func check(_ user: HubUser?) -> AccessDecision {
        guard let user else { return .authenticationRequired }
        for (name, allowed) in claims {
            guard let held = user.accessClaims[name], held.contains(where: allowed.contains) else { return .insufficientClaims }
        }
        return .allowed
    }
}

/// What an ``AccessRule`` says of a request's user.
public enum AccessDecision: Sendable, Equatable {
    case allowed
    /// Anonymous where a user is required (401).
    case authenticationRequired
    /// A user whose credential lacks a required claim value (403).
    case insufficientClaims

    /// The engine error for a refusal; `nil` when allowed.
    func error(feature: String) -> EngineError? {
        switch self {
        case .allowed: return nil
        case .authenticationRequired:
            return EngineError(.authenticationRequired, "feature '\(feature)' requires a signed-in user: send 'Authorization: Bearer <token>'")
        case .insufficientClaims:
            return EngineError(.insufficientClaims, "the user's credential lacks the claims feature '\(feature)' requires")
        }
    }
}
