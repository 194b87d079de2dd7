/// What a verified token's identity rests on: the keys of the provider that verified it, and
/// its times. While both still hold, the same token text is what it was when it was verified,
/// so a caller that keeps the identity beside the token text may answer it again without
/// parsing the token or checking its signature (``TokenVerifier/recheck(_:)``).
///
/// A lease names no token: the caller keys what it keeps by the exact token bytes.
public struct VerificationLease: Sendable {
    /// The verifier that verified the token: another one never accepts it.
    let verifier: ObjectIdentifier
    /// Which provider verified the token (its index in the verifier's list).
    let provider: Int
    /// That provider's key generation when its keys were read for the verification
    /// (``ProviderKeys/keyGeneration``): any later load of its keys ends the lease.
    let keyGeneration: UInt64
    /// The latest of the token's `nbf` and `iat` (seconds since 1970); `-infinity` when it has neither.
    let notBefore: Double
    /// The token's `exp` (seconds since 1970).
    let expires: Double
}

/// A verified token's identity and its ``VerificationLease``.
public struct LeasedIdentity: Sendable {
    /// Who the token says its bearer is.
    public let identity: VerifiedIdentity
    /// What that rests on.
    public let lease: VerificationLease
}
