import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// A bearer token presented again is accepted without its signature checked while what it was
/// verified under holds (the provider's keys, its times), over real sockets; anything else
/// about it (one byte, its `exp` passing, its key dropped by the provider) is checked as a new
/// token and refused as one.
@Suite("Identity: a verified token accepted again")
struct TokenReuseTests {
    static func withReuseHub(
        _ provider: IdentityProvider, refreshSeconds: Int = 86_400, leewaySeconds: Int = 60,
        _ body: (HubClient) async throws -> Void
    ) async throws {
        let jwt = provider.providerJSON(refreshSeconds: refreshSeconds, leewaySeconds: leewaySeconds)
        let server = IdentityConfig.server(identity: #""jwt": \#(jwt), "claims": ["plan"]"#)
        try await withHub(IdentityConfig.config(server: server), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            try await body(client)
        }
    }

    /// Requests enough for one token to be used twice on some event loop (one loop per core, at
    /// least two; each request here is a connection of its own): at least one reuse.
    static let requestsForOneReuse = max(2, ProcessInfo.processInfo.activeProcessorCount) + 1

    static func reused(_ client: HubClient) async throws -> Double {
        try #require(try await client.metric("hub_identity_tokens_reused_total"))
    }

    @Test("the same token again is accepted as its user without a signature check; one byte of its signature changed is checked and refused")
    func sameTokenReused() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.ed25519(kid: "ed-1")
        provider.publish([key])
        try await Self.withReuseHub(provider) { client in
            #expect(try await Self.reused(client) == 0, "present from the start")
            let token = try key.token(provider.claims("alice", ["plan": "premium"]))
            for _ in 0..<Self.requestsForOneReuse {
                let view = try await client.view("hub:premium", headers: bearer(token))
                #expect(view.status == 200, "\(view)")
                #expect(try view.json()["custom"]?["who"]?.stringValue == "alice")
            }
            // Every request is counted ok; all but the first on each event loop were reused.
            #expect(try await client.metric(#"hub_identity_verifications_total{result="ok"}"#) == Double(Self.requestsForOneReuse))
            #expect(try await Self.reused(client) >= 1)
            // The token with one character of its signature changed is another token (not the
            // last character: its low bits are base64 padding, which decoding ignores).
            var characters = Array(token)
            let index = characters.count - 10
            characters[index] = characters[index] == "A" ? "B" : "A"
            let tampered = String(characters)
            for _ in 0..<3 { try expectInvalidToken(try await client.view("hub:premium", headers: bearer(tampered))) }
            #expect(try await client.metric(#"hub_identity_verifications_total{result="signature"}"#) == 3)
            // Another token of the same user and key (another plan claim) is verified on its own:
            // its claims are its own, not the first token's.
            let basic = try key.token(provider.claims("alice", ["plan": "basic", "jti": "2"]))
            try expectProblem(try await client.view("hub:premium", headers: bearer(basic)), 403, "insufficient_claims")
            #expect(try await client.view("hub:premium", headers: bearer(token)).status == 200)
        }
    }

    @Test("a token over 2 KiB (the verifier takes up to 8) is accepted every time, each time checked in full, never kept")
    func longTokenNotKept() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.ed25519(kid: "ed-1")
        provider.publish([key])
        try await Self.withReuseHub(provider) { client in
            let token = try key.token(provider.claims("dave", ["padding": String(repeating: "x", count: 2_200)]))
            #expect(token.utf8.count > 2_048 && token.utf8.count < 8_192)
            for _ in 0..<(2 * Self.requestsForOneReuse) {
                #expect(try await client.view("hub:protected", headers: bearer(token)).status == 200)
            }
            #expect(try await Self.reused(client) == 0)
            #expect(try await client.metric(#"hub_identity_verifications_total{result="ok"}"#) == Double(2 * Self.requestsForOneReuse))
        }
    }

    @Test("a token accepted before is refused as expired once its exp passes (leeway 0)")
    func expiredAfterReuse() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.p256(kid: "ec-1")
        provider.publish([key])
        try await Self.withReuseHub(provider, leewaySeconds: 0) { client in
            // A token of a few seconds, used until it was reused; on a machine too slow to use it
            // that often within its life, again with a longer one.
            var (token, expires) = ("", 0)
            for lifetime in [3, 8, 20, 60] {
                expires = Int(Date().timeIntervalSince1970) + lifetime
                token = try key.token(provider.claims("bob", ["exp": expires]))
                var statuses: [Int] = []
                for _ in 0..<Self.requestsForOneReuse { statuses.append(try await client.view("hub:protected", headers: bearer(token)).status) }
                if statuses.allSatisfy({ $0 == 200 }) { break }
                #expect(Date().timeIntervalSince1970 >= Double(expires), "refused before its exp: \(statuses)")
            }
            #expect(try await Self.reused(client) >= 1)
            let expiredBefore = try await client.metric(#"hub_identity_verifications_total{result="expired"}"#) ?? 0
            while Date().timeIntervalSince1970 < Double(expires) + 0.2 { try await Task.sleep(for: .milliseconds(100)) }
            for _ in 0..<4 { try expectInvalidToken(try await client.view("hub:protected", headers: bearer(token))) }
            #expect(try await client.metric(#"hub_identity_verifications_total{result="expired"}"#) == expiredBefore + 4)
        }
    }

    @Test("a token accepted before is refused once the provider's keys no longer hold its key")
    func droppedKeyEndsReuse() async throws {
        let provider = try IdentityProvider()
        let old = try await SigningKey.rsa(kid: "old")
        let new = try await SigningKey.rsa(kid: "new")
        provider.publish([old])
        // The periodic refresh at its shortest: the test waits for one.
        try await Self.withReuseHub(provider, refreshSeconds: 10) { client in
            let token = try old.token(provider.claims("carol"))
            for _ in 0..<Self.requestsForOneReuse { #expect(try await client.view("hub:protected", headers: bearer(token)).status == 200) }
            #expect(try await Self.reused(client) >= 1)
            provider.publish([new])
            let refused = await eventually(within: 60) {
                try? await Task.sleep(for: .milliseconds(300))
                return (try? await client.view("hub:protected", headers: bearer(token)).status) == 401
            }
            #expect(refused, "the dropped key's token is refused after the refresh")
            // From then on every use is refused: nothing kept from before the refresh answers for it.
            for _ in 0..<4 { try expectInvalidToken(try await client.view("hub:protected", headers: bearer(token))) }
            #expect(try await client.metric(#"hub_identity_verifications_total{result="unknown_key"}"#) ?? 0 >= 5)
            #expect(try await client.view("hub:protected", headers: bearer(try new.token(provider.claims("carol")))).status == 200)
        }
    }
}
