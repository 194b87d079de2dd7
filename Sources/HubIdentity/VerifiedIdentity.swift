/// Who a verified token says its bearer is: what ``TokenVerifier/verify(_:)`` returns once the
/// signature, issuer, audience and times all hold.
public struct VerifiedIdentity: Sendable, Equatable {
    /// The `sub` claim (required, non-empty).
    public let subject: String
    /// The `iss` claim: the issuer of the provider that verified the token.
    public let issuer: String
    /// Every top-level claim of the payload, `sub`, `iss`, `aud` and `exp` included.
    public let claims: [String: ClaimValue]
    /// The `exp` claim, in whole seconds since 1970 (rounded down).
    public let expiresAt: Int

    /// Creates an identity (for tests of code that consumes one).
    public init(subject: String, issuer: String, claims: [String: ClaimValue], expiresAt: Int) {
        self.subject = subject
        self.issuer = issuer
        self.claims = claims
        self.expiresAt = expiresAt
    }
}
