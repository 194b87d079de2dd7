import Foundation
import HubIdentity
import HubTestSupport
import Testing

/// A verified token's lease (``TokenVerifier/recheck(_:)``): while the provider's keys are the
/// ones the token was verified with, it answers what a verification would (accepted while the
/// times hold with the provider's leeway, then `expired`), counted as one; a load of the keys
/// or another verifier leaves it without an answer.
@Suite struct LeaseTests {
    /// The lease of `token`, which must verify.
    static func lease(_ verifier: TokenVerifier, _ token: String) async throws -> VerificationLease {
        let leased = await verifier.verifyLeased(Substring(token))
        return try #require(leased.identity).lease
    }

    /// `recheck`'s answer as a word: "ok", the failure's raw value, or "none".
    static func answer(_ verifier: TokenVerifier, _ lease: VerificationLease) -> String {
        switch verifier.recheck(lease) {
        case nil: return "none"
        case .success?: return "ok"
        case .failure(let failure)?: return failure.rawValue
        }
    }

    @Test func aLeaseHoldsUntilExpPlusLeewayThenAnswersExpiredEachCountedAsAVerification() async throws {
        let key = try await TestKey.ed25519(kid: "ed")
        let clock = ManualClock()
        let events = EventRecorder()
        try await withVerifier(keys: [key], leeway: 30, clock: clock, events: events) { verifier, _ in
            let lease = try await Self.lease(verifier, try key.token(claims(issuer: testIssuer, at: clock, lifetime: 600)))
            #expect(events.verifications == ["ok"])
            #expect(Self.answer(verifier, lease) == "ok")
            clock.advance(seconds: 629)
            #expect(Self.answer(verifier, lease) == "ok", "within exp + leeway")
            #expect(events.verifications == ["ok", "ok", "ok"])
            #expect(events.reused == 2)
            clock.advance(seconds: 1)
            #expect(Self.answer(verifier, lease) == "expired", "at exp + leeway, as a verification would say")
            #expect(events.reused == 2, "a refusal is no reuse")
            #expect(events.verifications == ["ok", "ok", "ok", "expired"])
        }
    }

    @Test func anyLoadOfTheProvidersKeysEndsTheLeasesVerifiedBeforeIt() async throws {
        let kept = try await TestKey.rsa(kid: "kept")
        let removed = try await TestKey.p256(kid: "removed")
        let clock = ManualClock()
        try await withVerifier(keys: [kept, removed], clock: clock) { verifier, server in
            let onRemoved = try await Self.lease(verifier, try removed.token(claims(issuer: testIssuer, at: clock)))
            let onKept = try await Self.lease(verifier, try kept.token(claims(issuer: testIssuer, at: clock)))
            #expect(Self.answer(verifier, onRemoved) == "ok" && Self.answer(verifier, onKept) == "ok")
            // The provider drops a key: no lease survives the load, not even one on a key it kept
            // (a lease names keys, not the one key; its token is simply verified again).
            server.serve("/jwks", jwks([kept]))
            await verifier.refreshNow()
            #expect(Self.answer(verifier, onRemoved) == "none")
            #expect(Self.answer(verifier, onKept) == "none")
            #expect(await verifier.verify(Substring(try removed.token(claims(issuer: testIssuer, at: clock)))).failure == .unknownKey)
            let renewed = try await Self.lease(verifier, try kept.token(claims(issuer: testIssuer, at: clock)))
            #expect(Self.answer(verifier, renewed) == "ok")
            // A failed load keeps the keys, and the leases on them.
            server.serve("/jwks", Array("not json".utf8))
            await verifier.refreshNow()
            #expect(verifier.status().first?.error != nil)
            #expect(Self.answer(verifier, renewed) == "ok")
        }
    }

    @Test func aLeaseDoesNotHoldBeforeTheTokensNotBeforeTimeWhenTheClockGoesBack() async throws {
        let key = try await TestKey.rsa(kid: "rsa")
        let clock = ManualClock()
        try await withVerifier(keys: [key], leeway: 10, clock: clock) { verifier, _ in
            clock.advance(seconds: 1_000)
            let lease = try await Self.lease(
                verifier, try key.token(claims(issuer: testIssuer, at: clock, extra: ["nbf": Int(clock.wallSeconds) + 5])))
            #expect(Self.answer(verifier, lease) == "ok")
            // A wall clock stepped back (NTP): the token would be not yet valid now.
            clock.advance(seconds: -16)
            #expect(Self.answer(verifier, lease) == "not_yet_valid")
            #expect(await verifier.verify(Substring(try key.token(
                claims(issuer: testIssuer, at: clock, extra: ["nbf": Int(clock.wallSeconds) + 21])))).failure == .notYetValid)
        }
    }

    @Test func aLeaseIsAcceptedOnlyByTheVerifierThatGaveIt() async throws {
        let key = try await TestKey.rsa(kid: "rsa")
        let clock = ManualClock()
        // Two verifiers of the same provider, keys loaded once each (the same generation).
        try await withVerifier(keys: [key], clock: clock) { first, _ in
            try await withVerifier(keys: [key], clock: clock) { second, _ in
                let lease = try await Self.lease(first, try key.token(claims(issuer: testIssuer, at: clock)))
                #expect(Self.answer(first, lease) == "ok")
                #expect(Self.answer(second, lease) == "none")
            }
        }
    }
}
