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
///
/// A token that verifies comes with a ``VerificationLease`` (``verifyLeased(_:)``): a caller that
/// keeps it beside the token's exact bytes may answer the same token again from
/// ``recheck(_:)`` while the keys are unchanged, without steps 1-7.
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
        await verifyLeased(token).map(\.identity)
    }

    /// ``verify(_:)``, with the ``VerificationLease`` of an identity it accepts: what a caller
    /// that answers the same token again later (``recheck(_:)``) keeps beside it.
    public func verifyLeased(_ token: Substring) async -> Result<LeasedIdentity, VerificationFailure> {
        let result = await check(token)
        switch result {
        case .success: events.verified("ok")
        case .failure(let failure): events.verified(failure.rawValue)
        }
        return result
    }

    /// What a token verified under `lease` would get now, answered without looking at it again
    /// while the provider's keys are still the ones it was verified with (no load of its keys
    /// since, whatever the load found): its issuer, audience, algorithm and signature were checked
    /// against those keys and settings, which a running verifier never changes, so only its times
    /// are read again, with the provider's leeway: accepted before its `exp` and not before its
    /// `nbf` and `iat`; else refused as ``VerificationFailure/expired`` or
    /// ``VerificationFailure/notYetValid``, as step 7 would. `nil` when the lease cannot say
    /// (the keys were loaded since, or another verifier gave it): verify the token.
    ///
    /// Reports each answer as a verification would (``IdentityEvents/verified``), and an
    /// acceptance as a reuse (``IdentityEvents/reused``) too: every bearer request is counted
    /// once. Lock-free: one atomic load and a clock read.
    public func recheck(_ lease: VerificationLease) -> Result<Void, VerificationFailure>? {
        guard lease.verifier == ObjectIdentifier(self), providers.indices.contains(lease.provider) else { return nil }
        let provider = providers[lease.provider]
        guard provider.keyGeneration == lease.keyGeneration else { return nil }
        let now = clock().timeIntervalSince1970
        let leeway = Double(provider.settings.leewaySeconds)
        let answer: Result<Void, VerificationFailure>
        if now >= lease.expires + leeway {
            answer = .failure(.expired)
        } else if lease.notBefore > now + leeway {
            answer = .failure(.notYetValid)
        } else {
            answer = .success(())
        }
        switch answer {
        case .success:
            events.verified("ok")
            events.reused()
        case .failure(let failure):
            events.verified(failure.rawValue)
        }
        return answer
    }

    private func check(_ token: Substring) async -> Result<LeasedIdentity, VerificationFailure> {
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
        guard let issuer = unverified.string("iss"), let index = providers.firstIndex(where: { $0.settings.issuer == issuer }) else {
            return .failure(.issuer)
        }
        let provider = providers[index]
        guard provider.settings.algorithms.contains(alg) else { return .failure(.algorithm) }
        var held = provider.keys
        var lookup = held.snapshot.lookup(kid: kid, alg: alg)
        if case .unknownKid = lookup {
            await provider.refresh(onDemand: true)
            held = provider.keys
            lookup = held.snapshot.lookup(kid: kid, alg: alg)
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
        return ClaimRules.check(verified, settings: provider.settings, now: clock().timeIntervalSince1970).map { identity in
            LeasedIdentity(identity: identity, lease: lease(of: identity, provider: index, keyGeneration: held.generation))
        }
    }

    /// The lease of an identity ``ClaimRules`` accepted (so `exp` is a finite number, and `nbf`
    /// and `iat` are numbers when present).
    private func lease(of identity: VerifiedIdentity, provider: Int, keyGeneration: UInt64) -> VerificationLease {
        func time(_ name: String) -> Double? {
            if case .number(let value)? = identity.claims[name] { return value }
            return nil
        }
        let notBefore = [time("nbf"), time("iat")].compactMap { $0 }.max() ?? -.infinity
        return VerificationLease(
            verifier: ObjectIdentifier(self), provider: provider, keyGeneration: keyGeneration, notBefore: notBefore, expires: time("exp") ?? -.infinity)
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
