import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Where keys come from (over real sockets): OpenID Connect discovery from the issuer's URL, and
/// a list of providers, each verifying only its own issuer's tokens with its own keys.
@Suite("Identity: OpenID discovery and several providers")
struct ProviderDiscoveryTests {
    @Test("\"jwks\": \"discover\": the keys come from the jwks_uri of <issuer>/.well-known/openid-configuration")
    func discovery() async throws {
        let provider = try IdentityProvider(tenant: "tenant-a")
        let key = try await SigningKey.p256(kid: "ec-1")
        provider.serveDiscovery(jwksPath: "/elsewhere/keys.json")
        provider.publish([key], at: "/elsewhere/keys.json")
        let server = IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON(jwks: "discover"))"#)
        try await withHub(IdentityConfig.config(server: server), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            let view = try await client.view("hub:protected", headers: bearer(try key.token(provider.claims("alice"))))
            #expect(view.status == 200, "\(view)")
            #expect(try view.json()["custom"]?["who"]?.stringValue == "alice")
            #expect(provider.fetches("/tenant-a/.well-known/openid-configuration") >= 1)
            #expect(provider.fetches("/elsewhere/keys.json") >= 1)
            #expect(provider.fetches("/jwks") == 0)
            let ready = try await client.get("/ready").json()
            #expect(ready["identity"]?["providers"]?[0]?["issuer"]?.stringValue == provider.issuer)
            #expect(ready["identity"]?["providers"]?[0]?["keys"]?.intValue == 1)
        }
    }

    @Test("a discovery document without jwks_uri loads no keys: /ready says so and tokens are refused")
    func discoveryWithoutJWKSURI() async throws {
        let provider = try IdentityProvider(tenant: "broken")
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.serve("/broken/.well-known/openid-configuration", Array(#"{"issuer":"x"}"#.utf8))
        provider.publish([key])
        let server = IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON(jwks: "discover"))"#)
        try await withHub(IdentityConfig.config(server: server), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            try expectInvalidToken(try await client.view("hub:protected", headers: bearer(try key.token(provider.claims("alice")))))
            #expect(await eventually {
                let status = try? await client.get("/ready").json()["identity"]?["providers"]?[0]
                return status?["error"]?.stringValue?.contains("jwks_uri") == true && status?["keys"]?.intValue == 0
            })
        }
    }

    @Test("two providers, both with a key named \"main\": each verifies its own issuer's tokens only")
    func twoProviders() async throws {
        let one = try IdentityProvider(tenant: "one")
        let two = try IdentityProvider(tenant: "two")
        let keyOne = try await SigningKey.rsa(kid: "main")
        let keyTwo = try await SigningKey.rsa(kid: "main")
        let onlyTwo = try await SigningKey.ed25519(kid: "only-two")
        one.publish([keyOne])
        two.publish([keyTwo, onlyTwo])
        two.serveDiscovery(jwksPath: "/jwks")
        let server = IdentityConfig.server(
            identity: #""jwt": [\#(one.providerJSON()), \#(two.providerJSON(jwks: "discover"))]"#)
        try await withHub(IdentityConfig.config(server: server), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            for (key, provider, subject) in [(keyOne, one, "alice@one"), (keyTwo, two, "bob@two"), (onlyTwo, two, "carol@two")] {
                let view = try await client.view("hub:protected", headers: bearer(try key.token(provider.claims(subject))))
                #expect(view.status == 200, "\(subject): \(view)")
                #expect(try view.json()["custom"]?["who"]?.stringValue == subject)
            }
            // A token names its issuer; the other issuer's key, even under the same kid, does not verify it.
            try expectInvalidToken(try await client.view("hub:protected", headers: bearer(try keyTwo.token(one.claims("mallory")))))
            try expectInvalidToken(try await client.view("hub:protected", headers: bearer(try keyOne.token(two.claims("mallory")))))
            try expectInvalidToken(try await client.view("hub:protected", headers: bearer(try onlyTwo.token(one.claims("mallory")))))
            #expect(try await client.metric(#"hub_identity_verifications_total{result="signature"}"#) == 2)
            #expect(try await client.metric(#"hub_identity_verifications_total{result="unknown_key"}"#) == 1)
            #expect(try await client.metric(#"hub_identity_verifications_total{result="ok"}"#) == 3)
            let providers = try await client.get("/ready").json()["identity"]?["providers"]?.arrayValue ?? []
            #expect(providers.map { $0["issuer"]?.stringValue } == [one.issuer, two.issuer])
            #expect(providers.map { $0["keys"]?.intValue } == [1, 2])
        }
    }
}
