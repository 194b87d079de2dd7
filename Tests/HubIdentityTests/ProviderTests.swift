import Foundation
import HubIdentity
import HubTestSupport
import HubUpstream
import Testing

/// Several providers, OpenID discovery, and the verifier's settings and events.
@Suite struct ProviderTests {
    @Test func openIDDiscoveryFindsTheJWKSAndIsReadAgainAtEachRefresh() async throws {
        let key = try await TestKey.p256(kid: "disc")
        let server = try KeyServer()
        // The issuer ends with "/": the well-known URL is built without it.
        let issuer = server.url("/realms/main/")
        server.serve(
            "/realms/main/.well-known/openid-configuration",
            Array(#"{"issuer":"\#(issuer)","jwks_uri":"\#(server.url("/realms/main/certs"))"}"#.utf8))
        server.serve("/realms/main/certs", jwks([key]))
        let client = identityClient()
        defer { client.shutdown() }
        let clock = ManualClock()
        let verifier = TokenVerifier(
            providers: [JWTProviderSettings(issuer: issuer, audiences: ["hub"], keys: .discover, refreshSeconds: 86_400)],
            upstream: client, clock: clock.dateFunction)
        await verifier.start()
        defer { verifier.shutdown() }
        #expect(verifier.status().first?.error == nil)
        #expect(try await verifier.verify(Substring(key.token(claims(issuer: issuer, at: clock)))).failure == nil)
        #expect(server.upstream.receivedPaths == ["/realms/main/.well-known/openid-configuration", "/realms/main/certs"])
        await verifier.refreshNow()
        #expect(server.fetches("/realms/main/.well-known/openid-configuration") == 2)
        #expect(server.fetches("/realms/main/certs") == 2)
        // A discovery document without jwks_uri fails the refresh; the keys stay.
        server.serve("/realms/main/.well-known/openid-configuration", Array(#"{"issuer":"x"}"#.utf8))
        await verifier.refreshNow()
        #expect(verifier.status().first?.error?.contains("jwks_uri") == true)
        #expect(verifier.status().first?.keys == 1)
    }

    @Test func eachProviderVerifiesOnlyItsOwnIssuersTokens() async throws {
        let alpha = try await TestKey.rsa(kid: "k1")
        let beta = try await TestKey.rsa(kid: "k1")
        let server = try KeyServer()
        server.serve("/alpha", jwks([alpha]))
        server.serve("/beta", jwks([beta]))
        let client = identityClient()
        defer { client.shutdown() }
        let clock = ManualClock()
        let verifier = TokenVerifier(
            providers: [
                JWTProviderSettings(issuer: "https://alpha.test", audiences: ["hub"], keys: .url(server.url("/alpha")), refreshSeconds: 86_400),
                JWTProviderSettings(issuer: "https://beta.test", audiences: ["hub-b"], keys: .url(server.url("/beta")), refreshSeconds: 86_400),
            ],
            upstream: client, clock: clock.dateFunction)
        await verifier.start()
        defer { verifier.shutdown() }
        #expect(verifier.status().map(\.issuer) == ["https://alpha.test", "https://beta.test"])
        #expect(verifier.status().map(\.keys) == [1, 1])
        func verify(_ key: TestKey, _ issuer: String, audience: String) async throws -> Result<VerifiedIdentity, VerificationFailure> {
            await verifier.verify(Substring(try key.token(claims(issuer: issuer, at: clock, extra: ["aud": audience]))))
        }
        #expect(try await verify(alpha, "https://alpha.test", audience: "hub").identity?.issuer == "https://alpha.test")
        #expect(try await verify(beta, "https://beta.test", audience: "hub-b").identity?.issuer == "https://beta.test")
        // Same kid, the other provider's key: the token's iss picks the provider, whose key refuses it.
        #expect(try await verify(alpha, "https://beta.test", audience: "hub-b").failure == .signature)
        #expect(try await verify(beta, "https://alpha.test", audience: "hub").failure == .signature)
        // Each provider's own audiences.
        #expect(try await verify(alpha, "https://alpha.test", audience: "hub-b").failure == .audience)
        #expect(try await verify(alpha, "https://gamma.test", audience: "hub").failure == .issuer)
    }

    @Test func aProviderWhoseFirstLoadFailedRetriesOnDemand() async throws {
        let key = try await TestKey.ed25519(kid: "late")
        let clock = ManualClock()
        let events = EventRecorder()
        let server = try KeyServer()
        server.serve("/jwks", [], status: 503)
        let client = identityClient()
        defer { client.shutdown() }
        let verifier = TokenVerifier(
            providers: [JWTProviderSettings(issuer: testIssuer, audiences: ["hub"], keys: .url(server.url("/jwks")), refreshSeconds: 86_400)],
            upstream: client, events: events.events, clock: clock.dateFunction)
        await verifier.start()
        defer { verifier.shutdown() }
        let failed = try #require(verifier.status().first)
        #expect(failed.keys == 0 && failed.refreshedAt == nil && failed.error?.contains("503") == true)
        #expect(events.refreshes == [false] && events.logLines.count == 1)
        server.serve("/jwks", jwks([key]))
        clock.advance(seconds: 30)
        #expect(try await verifier.verify(Substring(key.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
        #expect(verifier.status().first?.error == nil)
        #expect(events.verifications == ["ok"])
    }

    @Test func settingsDefaultsAndValidation() {
        let settings = JWTProviderSettings(issuer: "https://a.test", audiences: ["hub"], keys: .discover)
        #expect(settings.algorithms == ["RS256", "ES256", "EdDSA"])
        #expect(settings.leewaySeconds == 60 && settings.refreshSeconds == 300)
        #expect(settings.validationProblem == nil)
        #expect(!JWTProviderSettings.allowedAlgorithms.contains { $0.hasPrefix("HS") || $0.lowercased() == "none" })
        var bad = settings
        for (change, problem) in [
            ({ (s: inout JWTProviderSettings) in s.algorithms = ["HS256"] }, "HS256"),
            ({ (s: inout JWTProviderSettings) in s.algorithms = ["none"] }, "none"),
            ({ (s: inout JWTProviderSettings) in s.algorithms = [] }, "empty"),
            ({ (s: inout JWTProviderSettings) in s.leewaySeconds = 301 }, "leeway"),
            ({ (s: inout JWTProviderSettings) in s.refreshSeconds = 9 }, "refresh"),
            ({ (s: inout JWTProviderSettings) in s.audiences = [] }, "audiences"),
            ({ (s: inout JWTProviderSettings) in s.issuer = "" }, "issuer"),
        ] {
            bad = settings
            change(&bad)
            #expect(bad.validationProblem?.contains(problem) == true, "\(problem)")
        }
        #expect(VerificationFailure.allCases.map(\.rawValue) == [
            "expired", "not_yet_valid", "signature", "issuer", "audience", "algorithm", "unknown_key", "malformed",
        ])
    }
}
