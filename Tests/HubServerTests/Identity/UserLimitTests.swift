import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Per-client limits key a verified user by the user, not the address (over real sockets from
/// several loopback addresses): two users behind one address have a budget each, one user on
/// two addresses shares one, and anonymous requests keep the address's own.
@Suite("Identity: per-client limits keyed by user")
struct UserLimitTests {
    /// Three sessions, then one every 1000 s.
    static let limits = #"{ "sessionsPerClient": { "perSecond": 0.001, "burst": 3 }, "actionsPerClient": { "perSecond": 100000, "burst": 100000 } }"#

    static func withLimitedHub(_ provider: IdentityProvider, _ body: (HubClient) async throws -> Void) async throws {
        let server = IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON())"#, limits: limits)
        try await withHub(IdentityConfig.config(server: server), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            try await body(client)
        }
    }

    @Test("alice and bob from 127.0.0.1: alice exhausts her three sessions (429 too_many_sessions), bob still opens his, and so does the anonymous address")
    func twoUsersOneAddress() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.publish([key])
        let alice = bearer(try key.token(provider.claims("alice")))
        let bob = bearer(try key.token(provider.claims("bob")))
        try await Self.withLimitedHub(provider) { hub in
            let client = hub.from("127.0.0.1")
            for _ in 0..<3 { #expect(try await client.view("hub:public", headers: alice).status == 200) }
            let refused = try await client.view("hub:public", headers: alice)
            try expectProblem(refused, 429, "too_many_sessions")
            #expect(refused.header("Retry-After") == "1000")
            try expectProblem(try await client.view("hub:protected", headers: alice), 429, "too_many_sessions")
            for _ in 0..<3 {
                let view = try await client.view("hub:public", headers: bob)
                #expect(view.status == 200, "bob's budget is his own: \(view)")
                #expect(try view.json()["custom"]?["who"]?.stringValue == "bob")
            }
            try expectProblem(try await client.view("hub:public", headers: bob), 429, "too_many_sessions")
            for _ in 0..<3 { #expect(try await client.view("hub:public").status == 200, "the address's own budget is untouched") }
            try expectProblem(try await client.view("hub:public"), 429, "too_many_sessions")
            #expect(try await client.metric("hub_sessions_created_total") == 9)
        }
    }

    @Test("carol from 127.0.0.2 and 127.0.0.3 shares one budget; the anonymous 127.0.0.3 keeps its own")
    func oneUserTwoAddresses() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.p256(kid: "ec-1")
        provider.publish([key])
        let carol = bearer(try key.token(provider.claims("carol")))
        // Another token of hers (another iat): the budget is the user's, not the token's.
        let carolAgain = bearer(try key.token(provider.claims("carol", ["iat": Int(Date().timeIntervalSince1970) - 5])))
        try await Self.withLimitedHub(provider) { hub in
            let two = hub.from("127.0.0.2")
            let three = hub.from("127.0.0.3")
            #expect(try await two.view("hub:public", headers: carol).status == 200)
            #expect(try await three.view("hub:public", headers: carol).status == 200)
            #expect(try await two.view("hub:public", headers: carolAgain).status == 200)
            try expectProblem(try await three.view("hub:public", headers: carol), 429, "too_many_sessions")
            try expectProblem(try await two.view("hub:public", headers: carolAgain), 429, "too_many_sessions")
            #expect(try await three.view("hub:public").status == 200, "anonymous from 127.0.0.3 is that address")
            #expect(try await two.view("hub:public").status == 200, "anonymous from 127.0.0.2 is that address")
        }
    }
}
