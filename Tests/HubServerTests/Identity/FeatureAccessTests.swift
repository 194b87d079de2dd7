import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// A feature's `"access"` over real sockets: anonymous is 401 `authentication_required`, a user
/// without the listed claim values 403 `insufficient_claims`, a user with one of them (a string
/// claim, or a member of an array claim) 200; `GET /features` shows the rule as configured.
@Suite("Identity: feature access rules (401, 403)")
struct FeatureAccessTests {
    @Test("anonymous on a protected feature: 401 authentication_required with the Bearer challenge; public stays open")
    func anonymousNeedsAUser() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.publish([key])
        try await BearerTokenTests.withIdentityHub(provider) { client in
            try expectAuthenticationRequired(try await client.view("hub:protected"))
            try expectAuthenticationRequired(try await client.view("hub:premium"))
            let open = try await client.view("hub:public")
            #expect(open.status == 200)
            #expect(try open.json()["custom"]?["who"]?.stringValue == "anonymous")
            let signedIn = try await client.view("hub:protected", headers: bearer(try key.token(provider.claims("alice"))))
            #expect(signedIn.status == 200)
            #expect(try signedIn.json()["custom"]?["who"]?.stringValue == "alice")
        }
    }

    @Test("plan claims: a wrong or missing plan is 403 insufficient_claims (error=\"insufficient_scope\"); premium, or family as an array member, is 200")
    func claimValues() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.ed25519(kid: "ed-1")
        provider.publish([key])
        try await BearerTokenTests.withIdentityHub(provider) { client in
            for claims in [["plan": "basic"], ["plan": ["basic", "trial"]], [:], ["plan": "Premium"], ["tier": "premium"]] as [[String: Any]] {
                let token = try key.token(provider.claims("bob", claims))
                let refused = try await client.view("hub:premium", headers: bearer(token))
                try expectProblem(refused, 403, "insufficient_claims")
                #expect(refused.header("WWW-Authenticate") == #"Bearer realm="hubserver", error="insufficient_scope""#, "\(refused)")
                // The same user passes a rule that asks for no claims.
                #expect(try await client.view("hub:protected", headers: bearer(token)).status == 200)
            }
            for (subject, claims) in [("carol", ["plan": "premium"]), ("dave", ["plan": ["basic", "family"]])] as [(String, [String: Any])] {
                let view = try await client.view("hub:premium", headers: bearer(try key.token(provider.claims(subject, claims))))
                #expect(view.status == 200, "\(subject): \(view)")
                #expect(try view.json()["custom"]?["who"]?.stringValue == subject)
            }
        }
    }

    @Test("a held premium session: its user, the plan kept, goes on; the same user whose new token lacks the plan is 403 on it")
    func claimsCheckedOnEveryUse() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.p256(kid: "ec-1")
        provider.publish([key])
        try await BearerTokenTests.withIdentityHub(provider) { client in
            let premium = bearer(try key.token(provider.claims("erin", ["plan": "premium"])))
            let opened = try await client.view("hub:premium", headers: premium)
            #expect(opened.status == 200)
            let session = try #require(opened.header("Hub-Session"))
            #expect(try await client.session(session, headers: premium).status == 200)
            let downgraded = bearer(try key.token(provider.claims("erin", ["plan": "basic"])))
            try expectProblem(try await client.session(session, headers: downgraded), 403, "insufficient_claims")
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","action":"who:ping"}"#, headers: downgraded), 403, "insufficient_claims")
        }
    }

    @Test("GET /features lists each feature's access rule as configured, and none for a public feature")
    func featuresShowAccess() async throws {
        let provider = try IdentityProvider()
        provider.publish([try await SigningKey.rsa(kid: "rsa-1")])
        try await BearerTokenTests.withIdentityHub(provider) { client in
            let response = try await client.get("/features")
            #expect(response.status == 200)
            let features = try #require(try response.json()["features"]?.arrayValue)
            func access(_ id: String) -> JSONValue? {
                features.first { $0["id"]?.stringValue == id }?["access"]
            }
            #expect(features.contains { $0["id"]?.stringValue == "public" })
            #expect(access("public") == nil)
            #expect(access("protected") == ["require": "user"])
            #expect(access("premium") == ["require": "user", "claims": ["plan": ["premium", "family"]]])
        }
    }
}
