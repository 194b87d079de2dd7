import Foundation
import HubUpstream
import JWTKit

/// Verifies bearer JWTs (compact JWS) from the configured identity providers with jwt-kit.
///
/// A token is checked in this order, and refused with the first failure that applies:
/// 1. at most ``maximumTokenBytes`` bytes, else ``VerificationFailure/malformed`` before any parsing;
/// 2. three base64url parts, a JSON header and payload (jwt-kit's unverified parse), no `crit`
///    header (this library processes no extension, so any `crit` is refused), `alg` and `kid`
///    strings when present: else `malformed`;
/// 3. `alg` one of ``JWTProviderSettings/allowedAlgorithms`` (never `none`, never HMAC), else
///    ``VerificationFailure/algorithm``;
/// 4. the unverified `iss` picks the provider with exactly that issuer (the first if several
///    have it), else ``VerificationFailure/issuer``; its ``JWTProviderSettings/algorithms`` must
///    list `alg`, else `algorithm`;
/// 5. the key named by `kid`: when the provider has none by that name, its keys are refreshed
///    (at most once per 30 s, shared by concurrent verifications) and looked up again; still
///    unknown: ``VerificationFailure/unknownKey``. A key of another type or curve than `alg`:
///    `algorithm`. A token without `kid` uses the provider's only key, and is `unknown_key` when
///    the provider has several (jwt-kit would pick its first);
/// 6. the signature, by jwt-kit, with exactly that key and algorithm: ``VerificationFailure/signature``;
/// 7. the claims of the verified payload (``ClaimRules``): `sub` and `exp` required (`malformed`),
///    `exp`, `nbf`, `iat` against the injected clock with the provider's leeway, `aud`.
public final class TokenVerifier: Sendable {
    /// The largest token accepted, in bytes.
    public static let maximumTokenBytes = 8192

    private let providers: [ProviderKeys]
    private let events: IdentityEvents
    private let clock: @Sendable () -> Date

    /// Creates a verifier for `providers`, fetching keys through `upstream` (a client of its own,
    /// not the server's cached one; requests bypass any cache regardless). `clock` is the wall
    /// clock for token times and the 30 s on-demand refresh limit (tests inject their own).
    /// Nothing is fetched before ``start()``.
    public init(
        providers: [JWTProviderSettings], upstream: any UpstreamClient, events: IdentityEvents = .init(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        let fetcher = KeyFetcher(upstream: upstream)
        self.providers = providers.map { ProviderKeys(settings: $0, fetcher: fetcher, events: events, clock: clock) }
        self.events = events
        self.clock = clock
    }

    /// Loads every provider's keys once (all at the same time; a failure is recorded in
    /// ``status()`` and logged, never thrown), then starts a background refresh per provider
    /// every ``JWTProviderSettings/refreshSeconds``.
    public func start() async {
        await withTaskGroup(of: Void.self) { group in
            for provider in providers {
                group.addTask { await provider.refresh(onDemand: false) }
            }
        }
        for provider in providers { provider.startLoop() }
    }

    /// Loads every provider's keys now (joining a load in flight), whenever the last load was.
    /// For a reload signal, and for tests.
    public func refreshNow() async {
        await withTaskGroup(of: Void.self) { group in
            for provider in providers {
                group.addTask { await provider.refresh(onDemand: false) }
            }
        }
    }

    /// Stops the background refreshes and cancels loads in flight. Verification goes on with the
    /// keys held.
    public func shutdown() {
        for provider in providers { provider.stop() }
    }

    /// Each provider's keys: how many, when last loaded, the last load's error.
    public func status() -> [ProviderStatus] {
        providers.map(\.status)
    }

    /// The identity `token` carries, or why it is refused (see the type's documentation for the
    /// order of checks). Reports `"ok"` or the failure's raw value to ``IdentityEvents/verified``.
    public func verify(_ token: Substring) async -> Result<VerifiedIdentity, VerificationFailure> {
        let result = await check(token)
        switch result {
        case .success: events.verified("ok")
        case .failure(let failure): events.verified(failure.rawValue)
        }
        return result
    }

    private func check(_ token: Substring) async -> Result<VerifiedIdentity, VerificationFailure> {
        guard token.utf8.count <= Self.maximumTokenBytes else { return .failure(.malformed) }
        let bytes = Array(token.utf8)
        let header: JWTHeader
        let unverified: ClaimSet
        do {
            (header, unverified, _) = try DefaultJWTParser().parse(bytes, as: ClaimSet.self)
        } catch {
            return .failure(.malformed)
        }
        guard header.fields["crit"] == nil, case .string(let alg)? = header.fields["alg"] else { return .failure(.malformed) }
        let kid: String?
        switch header.fields["kid"] {
        case nil: kid = nil
        case .string(let text)?: kid = text
        default: return .failure(.malformed)
        }
        guard JWTProviderSettings.allowedAlgorithms.contains(alg) else { return .failure(.algorithm) }
        guard let issuer = unverified.string("iss"), let provider = providers.first(where: { $0.settings.issuer == issuer }) else {
            return .failure(.issuer)
        }
        guard provider.settings.algorithms.contains(alg) else { return .failure(.algorithm) }
        var lookup = provider.snapshot.lookup(kid: kid, alg: alg)
        if case .unknownKid = lookup {
            await provider.refresh(onDemand: true)
            lookup = provider.snapshot.lookup(kid: kid, alg: alg)
        }
        let keys: JWTKeyCollection
        switch lookup {
        case .found(let collection): keys = collection
        case .wrongAlgorithm: return .failure(.algorithm)
        case .unknownKid, .noKid: return .failure(.unknownKey)
        }
        let verified: ClaimSet
        do {
            verified = try await keys.verify(bytes, as: ClaimSet.self)
        } catch {
            return .failure(Self.failure(for: error))
        }
        return ClaimRules.check(verified, settings: provider.settings, now: clock().timeIntervalSince1970)
    }

    /// What an error of jwt-kit's `verify` means here. The token was parsed and its key found
    /// before, so nearly everything is a signature that does not verify: `signatureVerificationFailed`,
    /// and any crypto error (a signature of the wrong length or encoding) → `signature`;
    /// `malformedToken` (a payload that jwt-kit cannot decode) → `malformed`; `unknownKID`,
    /// `missingKIDHeader`, `noKeyProvided` → `unknown_key`; `unsupportedAlgorithm`,
    /// `invalidJWK` (no signer for that algorithm) → `algorithm`.
    static func failure(for error: any Error) -> VerificationFailure {
        guard let error = error as? JWTError else { return .signature }
        switch error.errorType {
        case .malformedToken: return .malformed
        case .unknownKID, .missingKIDHeader, .noKeyProvided: return .unknownKey
        case .unsupportedAlgorithm, .invalidJWK: return .algorithm
        default: return .signature
        }
    }
}
