/// The registered-claim checks made on a payload whose signature jwt-kit has verified:
/// required `sub` and `exp`, times with the provider's leeway, the issuer and the audience.
enum ClaimRules {
    /// The identity in `claims`, or why it is refused, at `now` (seconds since 1970).
    ///
    /// In order: `sub` (a non-empty string) and `exp` (a number) are required, and `nbf`, `iat`
    /// must be numbers when present (else ``VerificationFailure/malformed``; a missing `exp` is
    /// `malformed`, not `expired`: the token was never valid for a bounded time); `iss` equals
    /// the provider's issuer; `exp + leeway` is after `now` (``VerificationFailure/expired``);
    /// `nbf` and `iat` are at most `now + leeway` (``VerificationFailure/notYetValid``); `aud`,
    /// a string or an array of strings, names one of the provider's audiences (else, or when
    /// missing, ``VerificationFailure/audience``).
    static func check(
        _ claims: ClaimSet, settings: JWTProviderSettings, now: Double
    ) -> Result<VerifiedIdentity, VerificationFailure> {
        guard let subject = claims.string("sub"), !subject.isEmpty else { return .failure(.malformed) }
        guard case .number(let expires) = claims.values["exp"], expires.isFinite else { return .failure(.malformed) }
        var notBefore: [Double] = []
        for name in ["nbf", "iat"] {
            switch claims.values[name] {
            case nil: continue
            case .number(let time) where time.isFinite: notBefore.append(time)
            default: return .failure(.malformed)
            }
        }
        guard claims.string("iss") == settings.issuer else { return .failure(.issuer) }
        let leeway = Double(settings.leewaySeconds)
        guard now < expires + leeway else { return .failure(.expired) }
        if notBefore.contains(where: { $0 > now + leeway }) { return .failure(.notYetValid) }
        let audiences: [String]
        switch claims.values["aud"] {
        case .string(let audience): audiences = [audience]
        case .array(let members): audiences = members.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: audiences = []
        }
        guard audiences.contains(where: settings.audiences.contains) else { return .failure(.audience) }
        let expiresAt = expires >= Double(Int.max) ? Int.max : Int(expires.rounded(.down))
        return .success(VerifiedIdentity(subject: subject, issuer: settings.issuer, claims: claims.values, expiresAt: expiresAt))
    }
}
