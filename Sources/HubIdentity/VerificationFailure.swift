/// Why ``TokenVerifier/verify(_:)`` refused a token. The raw values are stable, low-cardinality
/// labels for metrics and logs (``IdentityEvents/verified``).
public enum VerificationFailure: String, Error, Sendable, CaseIterable {
    /// `exp` (plus the leeway) has passed.
    case expired
    /// `nbf` or `iat` lies further in the future than the leeway.
    case notYetValid = "not_yet_valid"
    /// The signature does not verify with the key the token names (a tampered header or payload).
    case signature
    /// The token's `iss` is missing or names no configured provider.
    case issuer
    /// The token's `aud` is missing or names none of its provider's audiences.
    case audience
    /// The `alg` is not one of the provider's algorithms (`none` and HMAC never are), or the
    /// named key is of another type or curve.
    case algorithm
    /// The `kid` is not in the provider's keys even after a refresh (or the token has no `kid`
    /// and the provider has more than one key).
    case unknownKey = "unknown_key"
    /// Not a compact JWS (three base64url parts of JSON objects), larger than 8 KiB, a `crit`
    /// header, or a required claim (`exp`, `sub`) missing or of the wrong type.
    case malformed
}
