import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// A provider's keys change under a running hub (over real sockets): a key published later is
/// accepted without a restart, once a token naming it asks for a refresh (at most one a 30 s)
/// or the periodic refresh runs; while the JWKS endpoint fails, the keys held keep verifying and
/// `/ready` says what failed.
@Suite("Identity: provider keys refreshed while the hub runs")
struct KeyRefreshOverHTTPTests {
    /// `/ready`'s `identity.providers`.
    static func providers(_ client: HubClient) async throws -> [JSONValue] {
        let ready = try await client.get("/ready")
        #expect(ready.status == 200, "\(ready)")
        return try ready.json()["identity"]?["providers"]?.arrayValue ?? []
    }

    /// The status of `hub:protected` with `token`, after a pause (a poll, not a flood of 401s).
    static func pausedStatus(_ client: HubClient, _ token: String) async -> Int? {
        try? await Task.sleep(for: .milliseconds(300))
        return try? await client.view("hub:protected", headers: bearer(token)).status
    }

    static func withKeysHub(
        _ provider: IdentityProvider, refreshSeconds: Int, _ body: (HubClient) async throws -> Void
    ) async throws {
        let server = IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON(refreshSeconds: refreshSeconds))"#)
        try await withHub(
            IdentityConfig.config(server: server), extensions: IdentityConfig.extensions, transport: .socket
        ) { client, _ in try await body(client) }
    }

    @Test("a token naming a key published after the start is accepted without a restart: its unknown kid refreshes the keys, at most once in 30 s")
    func unknownKidRefreshes() async throws {
        let provider = try IdentityProvider()
        let first = try await SigningKey.rsa(kid: "first")
        let second = try await SigningKey.ed25519(kid: "second")
        provider.publish([first])
        // No periodic refresh within the test: only a token's unknown kid can bring the new key.
        try await Self.withKeysHub(provider, refreshSeconds: 86_400) { client in
            try await Self.rotate(client: client, provider: provider, first: first, second: second)
        }
    }

    /// `unknownKidRefreshes` on its hub: `first` is published and loaded, `second` is published now.
    static func rotate(client: HubClient, provider: IdentityProvider, first: SigningKey, second: SigningKey) async throws {
        #expect(await eventually { (try? await Self.providers(client).first?["keys"]?.intValue) == 1 })
        #expect(try await client.view("hub:protected", headers: bearer(try first.token(provider.claims("alice")))).status == 200)
        provider.publish([first, second])
        let started = Date()
        let token = try second.token(provider.claims("bob"))
        // Each refused try is an unknown kid asking for a refresh; the first one 30 s after the
        // start's load fetches the keys again. Polled about three times a second (a bounded number of 401s).
        let accepted = await eventually(within: 120) { await Self.pausedStatus(client, token) == 200 }
        #expect(accepted, "the new key is accepted without a restart")
        let elapsed = Date().timeIntervalSince(started)
        let view = try await client.view("hub:protected", headers: bearer(token))
        #expect(try view.json()["custom"]?["who"]?.stringValue == "bob")
        #expect(try await client.view("hub:protected", headers: bearer(try first.token(provider.claims("alice")))).status == 200)
        // The many unknown-kid tokens fetched the keys once or so, never once each.
        let fetches = provider.fetches("/jwks")
        #expect(fetches >= 2)
        #expect(fetches <= 3 + Int(elapsed / 30), "\(fetches) fetches in \(elapsed) s")
        #expect(try await client.metric(#"hub_identity_verifications_total{result="unknown_key"}"#) ?? 0 >= 1)
        #expect(try await Self.providers(client).first?["keys"]?.intValue == 2)
    }

    @Test("JWKS endpoint answering 500: known keys keep working, /ready shows the keys kept and the error; once it answers again a new key works and the error clears")
    func outageKeepsKnownKeys() async throws {
        let provider = try IdentityProvider()
        let first = try await SigningKey.p256(kid: "first")
        let next = try await SigningKey.rsa(kid: "next")
        provider.publish([first])
        try await Self.withKeysHub(provider, refreshSeconds: 10) { client in
            #expect(await eventually { (try? await Self.providers(client).first?["keys"]?.intValue) == 1 })
            let listed = try #require(try await Self.providers(client).first)
            #expect(listed["issuer"]?.stringValue == provider.issuer)
            #expect(listed["error"] == .null)
            #expect(listed["refreshedAt"]?.stringValue != nil)

            provider.serve("/jwks", Array(#"{"error":"down"}"#.utf8), status: 500)
            // The periodic refresh (10 s) fails: shown, the one key kept.
            #expect(await eventually(within: 120) {
                (try? await Self.providers(client).first?["error"]?.stringValue) != nil
            })
            let failing = try #require(try await Self.providers(client).first)
            #expect(failing["keys"]?.intValue == 1, "the keys held are kept")
            let error = failing["error"]?.stringValue ?? ""
            #expect(error.contains("500"), "\(error)")
            #expect(try await client.get("/ready").json()["status"]?.stringValue == "ready", "an outage is shown, never required")
            #expect(try await client.metric(#"hub_identity_jwks_refreshes_total{result="error"}"#) ?? 0 >= 1)
            let alice = try await client.view("hub:protected", headers: bearer(try first.token(provider.claims("alice"))))
            #expect(alice.status == 200, "a known key keeps verifying: \(alice)")

            provider.publish([first, next])
            let nextToken = try next.token(provider.claims("bob"))
            #expect(await eventually(within: 120) { await Self.pausedStatus(client, nextToken) == 200 })
            #expect(await eventually { (try? await Self.providers(client).first?["error"]) == .null })
            #expect(try await Self.providers(client).first?["keys"]?.intValue == 2)
            #expect(try await client.view("hub:protected", headers: bearer(try first.token(provider.claims("alice")))).status == 200)
        }
    }
}
