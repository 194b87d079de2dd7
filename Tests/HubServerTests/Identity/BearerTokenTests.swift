import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Bearer JWTs over real sockets: tokens of the three accepted key types pass; every token that
/// does not verify is 401 `invalid_token` with its `WWW-Authenticate` challenge on every endpoint,
/// public ones included (a bad credential is refused, never ignored), and is counted by reason.
@Suite("Identity: bearer tokens verified before every endpoint")
struct BearerTokenTests {
    static func withIdentityHub(
        _ provider: IdentityProvider, _ body: (HubClient) async throws -> Void
    ) async throws {
        let server = IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON()), "claims": ["plan"]"#)
        try await withHub(IdentityConfig.config(server: server), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            try await body(client)
        }
    }

    @Test("RS256, ES256 and EdDSA tokens of the issuer's JWKS open a protected feature as their subject, counted ok")
    func validTokensOfEachKeyType() async throws {
        let provider = try IdentityProvider()
        let keys = [try await SigningKey.rsa(kid: "rsa-1"), try await SigningKey.p256(kid: "ec-1"), try await SigningKey.ed25519(kid: "ed-1")]
        provider.publish(keys)
        try await Self.withIdentityHub(provider) { client in
            for key in keys {
                let subject = "user-\(key.alg)"
                let token = try key.token(provider.claims(subject))
                let view = try await client.view("hub:protected", headers: bearer(token))
                #expect(view.status == 200, "\(key.alg): \(view)")
                #expect(try view.json()["custom"]?["who"]?.stringValue == subject, "\(key.alg)")
                // The scheme is case-insensitive (RFC 9110 11.1).
                #expect(try await client.view("hub:protected", headers: [("Authorization", "bearer " + token)]).status == 200)
            }
            #expect(try await client.metric(#"hub_identity_verifications_total{result="ok"}"#) == 6)
            #expect(try await client.metric(#"hub_identity_verifications_total{result="signature"}"#) == 0)
        }
    }

    @Test("expired, not yet valid, wrong issuer, wrong audience, alg none, HS256 keyed with the RSA public key, unknown kid, tampered payload, over 8 KiB: 401 invalid_token everywhere, counted by reason")
    func refusedTokens() async throws {
        let provider = try IdentityProvider()
        let rsa = try await SigningKey.rsa(kid: "rsa-1")
        let stranger = try await SigningKey.rsa(kid: "not-published")
        provider.publish([rsa])
        let now = Int(Date().timeIntervalSince1970)
        let valid = try rsa.token(provider.claims("alice"))
        let parts = valid.split(separator: ".").map(String.init)
        let forgedPayload = try SigningKey.encode(provider.claims("mallory"))
        let pem = try #require(rsa.publicPEM)
        let refused: [(label: String, token: String, reason: String)] = [
            ("expired", try rsa.token(provider.claims("alice", ["iat": now - 7200, "exp": now - 3600])), "expired"),
            ("not yet valid", try rsa.token(provider.claims("alice", ["nbf": now + 3600])), "not_yet_valid"),
            ("wrong issuer", try rsa.token(provider.claims("alice", ["iss": "https://id.other.example/"])), "issuer"),
            ("wrong audience", try rsa.token(provider.claims("alice", ["aud": ["other-service"]])), "audience"),
            ("alg none", try SigningKey.encode(["alg": "none", "typ": "JWT"]) + "." + parts[1] + ".", "algorithm"),
            ("HS256 with the RSA public key", try await SigningKey.hs256(provider.claims("alice"), secret: pem, kid: "rsa-1"), "algorithm"),
            ("unknown kid", try stranger.token(provider.claims("alice")), "unknown_key"),
            ("tampered payload", parts[0] + "." + forgedPayload + "." + parts[2], "signature"),
            ("over 8 KiB", try rsa.token(provider.claims("alice", ["padding": String(repeating: "x", count: 8300)])), "malformed"),
        ]
        try await Self.withIdentityHub(provider) { client in
            // The real token works, so each refusal below is about the token alone.
            #expect(try await client.view("hub:protected", headers: bearer(valid)).status == 200)
            let session = try #require(try await client.view("hub:public").header("Hub-Session"))
            for (_, token, _) in refused {
                let headers = bearer(token)
                try expectInvalidToken(try await client.view("hub:protected", headers: headers))
                try expectInvalidToken(try await client.view("hub:public", headers: headers))
                try expectInvalidToken(
                    try await client.action(#"{"session":"\#(session)","action":"who:ping"}"#, headers: headers))
                try expectInvalidToken(try await client.get("/features", headers: headers))
            }
            for reason in Set(refused.map(\.reason)) {
                let expected = Double(refused.filter { $0.reason == reason }.count * 4)
                let counted = try await client.metric(#"hub_identity_verifications_total{result="\#(reason)"}"#)
                #expect(counted == expected, "\(reason): \(String(describing: counted))")
            }
            #expect(try await client.metric(#"hub_identity_verifications_total{result="ok"}"#) == 1)
            // The anonymous session opened above took no action: every POST /action was refused first.
            #expect(try await client.session(session).json()["custom"]?["who"]?.stringValue == "anonymous")
        }
    }

    @Test("an Authorization header of another scheme is no credential (anonymous); a bearer token that is no JWT is refused")
    func otherSchemes() async throws {
        let provider = try IdentityProvider()
        provider.publish([try await SigningKey.p256(kid: "ec-1")])
        try await Self.withIdentityHub(provider) { client in
            let basic = try await client.view("hub:public", headers: [("Authorization", "Basic YWxpY2U6c2VjcmV0")])
            #expect(basic.status == 200)
            #expect(try basic.json()["custom"]?["who"]?.stringValue == "anonymous")
            try expectAuthenticationRequired(try await client.view("hub:protected", headers: [("Authorization", "Basic YWxpY2U6c2VjcmV0")]))
            try expectInvalidToken(try await client.view("hub:public", headers: bearer("not-a-jwt")))
        }
    }
}
