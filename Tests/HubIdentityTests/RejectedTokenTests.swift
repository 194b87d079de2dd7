import Foundation
import HubIdentity
import HubTestSupport
import JWTKit
import Testing

/// Tokens that must fail, each with its exact failure.
@Suite struct RejectedTokenTests {
    @Test func wrongIssuerAndWrongAudienceAreRefused() async throws {
        let key = try await TestKey.rsa(kid: "k")
        let clock = ManualClock()
        let events = EventRecorder()
        try await withVerifier(keys: [key], clock: clock, events: events) { verifier, _ async throws in
            func verify(_ payload: [String: Any]) async throws -> VerificationFailure? {
                await verifier.verify(Substring(try key.token(payload))).failure
            }
            #expect(try await verify(claims(issuer: "https://evil.example.test", at: clock)) == .issuer)
            #expect(try await verify(claims(issuer: testIssuer + "/", at: clock)) == .issuer)
            var noIssuer = claims(issuer: testIssuer, at: clock)
            noIssuer["iss"] = nil
            #expect(try await verify(noIssuer) == .issuer)
            #expect(try await verify(claims(issuer: testIssuer, at: clock, extra: ["aud": "other"])) == .audience)
            #expect(try await verify(claims(issuer: testIssuer, at: clock, extra: ["aud": ["a", "b"]])) == .audience)
            #expect(try await verify(claims(issuer: testIssuer, at: clock, extra: ["aud": ["a", "hub"]])) == nil)
            var noAudience = claims(issuer: testIssuer, at: clock)
            noAudience["aud"] = nil
            #expect(try await verify(noAudience) == .audience)
            #expect(events.verifications == ["issuer", "issuer", "issuer", "audience", "audience", "ok", "audience"])
        }
    }

    @Test func expiredAndNotYetValidTokensAreRefused() async throws {
        let key = try await TestKey.ed25519(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], clock: clock) { verifier, _ async throws in
            let expired = try key.token(claims(issuer: testIssuer, at: clock, extra: ["exp": Int(clock.wallSeconds) - 600]))
            #expect(await verifier.verify(Substring(expired)).failure == .expired)
            let early = try key.token(claims(issuer: testIssuer, at: clock, extra: ["nbf": Int(clock.wallSeconds) + 600]))
            #expect(await verifier.verify(Substring(early)).failure == .notYetValid)
            let future = try key.token(claims(issuer: testIssuer, at: clock, extra: ["iat": Int(clock.wallSeconds) + 600]))
            #expect(await verifier.verify(Substring(future)).failure == .notYetValid)
        }
    }

    @Test func missingExpOrSubIsMalformed() async throws {
        let key = try await TestKey.p256(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], clock: clock) { verifier, _ async throws in
            for name in ["exp", "sub"] {
                var payload = claims(issuer: testIssuer, at: clock)
                payload[name] = nil
                #expect(try await verifier.verify(Substring(key.token(payload))).failure == .malformed, "without \(name)")
            }
            let emptySubject = try key.token(claims(issuer: testIssuer, at: clock, extra: ["sub": ""]))
            #expect(await verifier.verify(Substring(emptySubject)).failure == .malformed)
            let textExpiry = try key.token(claims(issuer: testIssuer, at: clock, extra: ["exp": "tomorrow"]))
            #expect(await verifier.verify(Substring(textExpiry)).failure == .malformed)
        }
    }

    @Test func algNoneIsRefusedAsAlgorithm() async throws {
        let key = try await TestKey.rsa(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], clock: clock) { verifier, _ async throws in
            let payload = try TestKey.encode(claims(issuer: testIssuer, at: clock))
            for header in [["alg": "none"], ["alg": "none", "kid": "k"], ["alg": "None"]] {
                let token = try TestKey.encode(header) + "." + payload + "."
                #expect(await verifier.verify(Substring(token)).failure == .algorithm)
            }
            // The same payload properly signed passes: the refusal above is the algorithm's.
            #expect(try await verifier.verify(Substring(key.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
        }
    }

    /// The key-confusion attack: HS256 "signed" with the provider's RSA public key (its PEM
    /// text or its DER bytes) as the HMAC secret, with the RSA key's kid.
    @Test func hs256SignedWithTheRSAPublicKeyIsRefusedAsAlgorithm() async throws {
        let rsaKey = try TestKey.rsaPrivateKey()
        let key = try await TestKey.rsa(rsaKey, kid: "rsa", alg: "RS256")
        let clock = ManualClock()
        try await withVerifier(keys: [key], algorithms: ["RS256", "ES256"], clock: clock) { verifier, _ async throws in
            let secrets = [Array(rsaKey.publicKey.pemRepresentation.utf8), Array(rsaKey.publicKey.derRepresentation)]
            for secret in secrets {
                let hmac = JWTKeyCollection()
                await hmac.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "rsa")
                let signer = try await hmac.getKey(for: "rsa")
                let token = try TestKey.sign(
                    header: ["alg": "HS256", "kid": "rsa", "typ": "JWT"], payload: claims(issuer: testIssuer, at: clock), with: signer)
                #expect(await verifier.verify(Substring(token)).failure == .algorithm)
                // Relabelled RS256, the HMAC bytes are no RSA signature.
                let relabelled = try TestKey.sign(
                    header: ["alg": "RS256", "kid": "rsa"], payload: claims(issuer: testIssuer, at: clock), with: signer)
                #expect(await verifier.verify(Substring(relabelled)).failure == .signature)
            }
        }
    }

    /// A symmetric key in the JWKS is never loaded: an HS256 token under its kid is refused, and
    /// an RS256 token naming it finds no key.
    @Test func symmetricJWKSKeysAreNeverLoaded() async throws {
        let key = try await TestKey.rsa(kid: "rsa")
        let secret = Array("a shared secret of thirty-two by".utf8)
        let clock = ManualClock()
        let oct = ["kty": "oct", "kid": "sym", "k": base64URL(Data(secret)), "alg": "HS256"]
        try await withVerifier(keys: [key], extra: [oct], clock: clock) { verifier, server async throws in
            #expect(verifier.status().first?.keys == 1)
            let hmac = JWTKeyCollection()
            await hmac.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "sym")
            let signer = try await hmac.getKey(for: "sym")
            let hs256 = try TestKey.sign(header: ["alg": "HS256", "kid": "sym"], payload: claims(issuer: testIssuer, at: clock), with: signer)
            #expect(await verifier.verify(Substring(hs256)).failure == .algorithm)
            clock.advance(seconds: 31)
            let relabelled = try TestKey.sign(header: ["alg": "RS256", "kid": "sym"], payload: claims(issuer: testIssuer, at: clock), with: signer)
            #expect(await verifier.verify(Substring(relabelled)).failure == .unknownKey)
            #expect(server.fetches("/jwks") == 2)
        }
    }

    @Test func anAlgorithmTheProviderDoesNotListOrTheKeyCannotDoIsRefused() async throws {
        let rsa = try await TestKey.rsa(kid: "rsa")
        let ec = try await TestKey.p256(kid: "ec")
        let clock = ManualClock()
        try await withVerifier(keys: [rsa, ec], algorithms: ["ES256"], clock: clock) { verifier, _ async throws in
            #expect(try await verifier.verify(Substring(ec.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
            #expect(try await verifier.verify(Substring(rsa.token(claims(issuer: testIssuer, at: clock)))).failure == .algorithm)
        }
        try await withVerifier(keys: [rsa, ec], algorithms: ["RS256", "PS256", "ES256"], clock: clock) { verifier, _ async throws in
            // The EC key named with an RSA algorithm, the RSA key with PS256 (an RS256 signature).
            let confused = try ec.token(claims(issuer: testIssuer, at: clock), header: ["alg": "RS256"])
            #expect(await verifier.verify(Substring(confused)).failure == .algorithm)
            let relabelled = try rsa.token(claims(issuer: testIssuer, at: clock), header: ["alg": "PS256"])
            #expect(await verifier.verify(Substring(relabelled)).failure == .signature)
        }
        // A JWK that names its alg verifies that one only.
        var pinned = rsa.publicJWK
        pinned["alg"] = "RS256"
        pinned["kid"] = "pinned"
        try await withVerifier(keys: [], extra: [pinned], algorithms: ["RS256", "PS256"], clock: clock) { verifier, _ async throws in
            let ps256 = try rsa.token(claims(issuer: testIssuer, at: clock), header: ["alg": "PS256", "kid": "pinned"])
            #expect(await verifier.verify(Substring(ps256)).failure == .algorithm)
            let rs256 = try rsa.token(claims(issuer: testIssuer, at: clock), header: ["kid": "pinned"])
            #expect(await verifier.verify(Substring(rs256)).failure == nil)
        }
    }

    @Test func anUnknownKidIsRefused() async throws {
        let known = try await TestKey.rsa(kid: "known")
        let stranger = try await TestKey.rsa(kid: "stranger")
        let clock = ManualClock()
        try await withVerifier(keys: [known], clock: clock) { verifier, _ async throws in
            #expect(try await verifier.verify(Substring(stranger.token(claims(issuer: testIssuer, at: clock)))).failure == .unknownKey)
            // The stranger's token under the known kid: jwt-kit checks it with the known key.
            let borrowed = try stranger.token(claims(issuer: testIssuer, at: clock), header: ["kid": "known"])
            #expect(await verifier.verify(Substring(borrowed)).failure == .signature)
        }
    }

    @Test func aTamperedPayloadFailsTheSignature() async throws {
        let key = try await TestKey.p256(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], clock: clock) { verifier, _ async throws in
            let token = try key.token(claims(issuer: testIssuer, at: clock, extra: ["role": "user"]))
            let parts = token.split(separator: ".")
            let forged = try TestKey.encode(claims(issuer: testIssuer, at: clock, extra: ["role": "admin"]))
            let tampered = "\(parts[0]).\(forged).\(parts[2])"
            #expect(await verifier.verify(Substring(tampered)).failure == .signature)
            #expect(await verifier.verify(Substring(token)).failure == nil)
        }
    }

    @Test func oversizedNonCompactAndCritTokensAreMalformed() async throws {
        let key = try await TestKey.ed25519(kid: "k")
        let clock = ManualClock()
        try await withVerifier(keys: [key], clock: clock) { verifier, _ async throws in
            let big = try key.token(claims(issuer: testIssuer, at: clock, extra: ["pad": String(repeating: "x", count: 9000)]))
            #expect(await verifier.verify(Substring(big)).failure == .malformed)
            #expect(await verifier.verify(Substring(String(repeating: "a", count: 100_000))).failure == .malformed)
            let good = try key.token(claims(issuer: testIssuer, at: clock))
            let parts = good.split(separator: ".").map(String.init)
            let notJSON = base64URL(Data("not json".utf8))
            for bad in [
                "", "abc", parts[0] + "." + parts[1], good + ".x", parts[0] + ".!!." + parts[2], notJSON + "." + parts[1] + "." + parts[2],
                parts[0] + "." + notJSON + "." + parts[2], try TestKey.encode(["alg": 256]) + "." + parts[1] + "." + parts[2],
                parts[0] + "." + base64URL(Data("[1,2]".utf8)) + "." + parts[2],
            ] {
                #expect(await verifier.verify(Substring(bad)).failure == .malformed, "\(bad.prefix(40))")
            }
            // Properly signed, but with a critical extension this library does not process.
            for crit: Any in [["exp"], ["hub-unknown"], [String]()] {
                let critical = try key.token(claims(issuer: testIssuer, at: clock), header: ["crit": crit, "exp": 1, "hub-unknown": true])
                #expect(await verifier.verify(Substring(critical)).failure == .malformed)
            }
            let plain = try key.token(claims(issuer: testIssuer, at: clock), header: ["hub-unknown": true])
            #expect(await verifier.verify(Substring(plain)).failure == nil)
        }
    }
}
