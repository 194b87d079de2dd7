import Foundation
import HubIdentity
import HubTestSupport
import JWTKit
import Testing

/// Tokens that must pass: each algorithm family, the claims returned, the leeway, `aud` forms.
@Suite struct ValidTokenTests {
    @Test(arguments: ["RS256", "PS256", "ES256", "EdDSA"])
    func aTokenSignedWithAListedKeyPassesWithItsClaims(alg: String) async throws {
        let key: TestKey =
            switch alg {
            case "ES256": try await .p256(kid: "k-\(alg)")
            case "EdDSA": try await .ed25519(kid: "k-\(alg)")
            default: try await .rsa(kid: "k-\(alg)", alg: alg)
            }
        let clock = ManualClock()
        let events = EventRecorder()
        try await withVerifier(keys: [key], algorithms: ["RS256", "PS256", "ES256", "EdDSA"], clock: clock, events: events) {
            verifier, _ async throws in
            let extra: [String: Any] = [
                "role": "admin", "groups": ["staff", "ops"], "level": 3, "ratio": 1.5, "beta": true, "address": ["city": "x"],
                "nothing": NSNull(),
            ]
            let token = try key.token(claims(issuer: testIssuer, at: clock, extra: extra))
            let identity = try #require(await verifier.verify(Substring(token)).identity)
            #expect(identity.subject == "user-1")
            #expect(identity.issuer == testIssuer)
            #expect(identity.expiresAt == Int(clock.wallSeconds) + 600)
            #expect(identity.claims["role"] == .string("admin"))
            #expect(identity.claims["groups"] == .array([.string("staff"), .string("ops")]))
            #expect(identity.claims["level"] == .number(3))
            #expect(identity.claims["ratio"] == .number(1.5))
            #expect(identity.claims["beta"] == .bool(true))
            #expect(identity.claims["address"] == .object)
            #expect(identity.claims["nothing"] == .null)
            #expect(identity.claims["aud"] == .string("hub"))
            #expect(identity.claims.count == 12)
            #expect(events.verifications == ["ok"])
        }
    }

    @Test func aTokenMadeByJWTKitsOwnSigningAPIPasses() async throws {
        struct Payload: JWTPayload {
            var sub: SubjectClaim
            var iss: IssuerClaim
            var aud: AudienceClaim
            var exp: ExpirationClaim
            func verify(using _: some JWTAlgorithm) async throws {}
        }
        let key = try TestKey.rsaPrivateKey()
        let test = try await TestKey.rsa(key, kid: "signing-api", alg: "RS256")
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: "signing-api")
        let clock = ManualClock()
        let payload = Payload(
            sub: "alice", iss: IssuerClaim(value: testIssuer), aud: AudienceClaim(value: ["other", "hub"]),
            exp: ExpirationClaim(value: clock.date.addingTimeInterval(60)))
        let token = try await keys.sign(payload, kid: "signing-api")
        try await withVerifier(keys: [test], clock: clock) { verifier, _ async throws in
            let identity = try #require(await verifier.verify(Substring(token)).identity)
            #expect(identity.subject == "alice")
            #expect(identity.claims["aud"] == .array([.string("other"), .string("hub")]))
        }
    }

    @Test func expiryAndNotBeforeAllowTheLeewayAndNoMore() async throws {
        let key = try await TestKey.p256(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], leeway: 60, clock: clock) { verifier, _ async throws in
            let now = Int(clock.wallSeconds)
            func verify(_ extra: [String: Any]) async throws -> VerificationFailure? {
                let token = try key.token(claims(issuer: testIssuer, at: clock, extra: extra))
                return await verifier.verify(Substring(token)).failure
            }
            #expect(try await verify(["exp": now - 59]) == nil)
            #expect(try await verify(["exp": now - 60]) == .expired)
            #expect(try await verify(["exp": now - 3600]) == .expired)
            #expect(try await verify(["nbf": now + 60]) == nil)
            #expect(try await verify(["nbf": now + 61]) == .notYetValid)
            #expect(try await verify(["iat": now + 60]) == nil)
            #expect(try await verify(["iat": now + 61]) == .notYetValid)
        }
    }

    @Test func theClockIsTheInjectedOne() async throws {
        let key = try await TestKey.ed25519(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], leeway: 0, clock: clock) { verifier, _ async throws in
            let token = try key.token(claims(issuer: testIssuer, at: clock, lifetime: 100))
            #expect(await verifier.verify(Substring(token)).failure == nil)
            clock.advance(seconds: 100)
            #expect(await verifier.verify(Substring(token)).failure == .expired)
        }
    }

    @Test func aTokenWithoutKidUsesTheOnlyKeyAndNeverGuessesAmongSeveral() async throws {
        let only = try await TestKey.rsa(kid: "only")
        let other = try await TestKey.rsa(kid: "other")
        let clock = ManualClock()
        try await withVerifier(keys: [only], clock: clock) { verifier, _ async throws in
            let token = try only.token(claims(issuer: testIssuer, at: clock), omitKid: true)
            #expect(await verifier.verify(Substring(token)).failure == nil)
        }
        try await withVerifier(keys: [only, other], clock: clock) { verifier, _ async throws in
            let token = try only.token(claims(issuer: testIssuer, at: clock), omitKid: true)
            #expect(await verifier.verify(Substring(token)).failure == .unknownKey)
        }
    }

    @Test func aTokenOfExactlyTheLimitPasses() async throws {
        let key = try await TestKey.ed25519(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], clock: clock) { verifier, _ async throws in
            var padding = 7000
            var token = ""
            while true {
                token = try key.token(claims(issuer: testIssuer, at: clock, extra: ["pad": String(repeating: "a", count: padding)]))
                if token.utf8.count >= TokenVerifier.maximumTokenBytes { break }
                padding += 1
            }
            // Base64 grows by 4 characters per 3 bytes: some padding lands on the limit exactly.
            while token.utf8.count > TokenVerifier.maximumTokenBytes {
                padding -= 1
                token = try key.token(claims(issuer: testIssuer, at: clock, extra: ["pad": String(repeating: "a", count: padding)]))
            }
            #expect(token.utf8.count >= TokenVerifier.maximumTokenBytes - 1)
            #expect(await verifier.verify(Substring(token)).failure == nil)
            let longer = try key.token(claims(issuer: testIssuer, at: clock, extra: ["pad": String(repeating: "a", count: padding + 3)]))
            #expect(longer.utf8.count > TokenVerifier.maximumTokenBytes)
            #expect(await verifier.verify(Substring(longer)).failure == .malformed)
        }
    }
}
