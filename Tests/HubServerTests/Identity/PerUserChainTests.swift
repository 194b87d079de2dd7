import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Chains that read the user, over real sockets: a `{user.sub}` URL is fetched once per user and
/// memoized per user, never shared; `forwardIdentity` sends the verified subject in its header,
/// never the client's own value; an anonymous request for either is 401 before any upstream.
@Suite("Identity: per-user chains, memo and forwardIdentity")
struct PerUserChainTests {
    /// The standard features plus `mine` (`{user.sub}` in the URL) and `forwarded`
    /// (`forwardIdentity` X-User-Id, a URL without the user), and a remote action namespace
    /// `remote` that forwards the identity too. No `identity.header`.
    static func config(provider: IdentityProvider, content: TestUpstream) -> TestConfig {
        var config = IdentityConfig.config(server: IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON())"#))
        config.feature("mine", """
            { "id": "mine", "title": "Mine", "match": { "root": "hub:mine" },
              "operations": [ { "kind": "remote", "url": "\(content.url("/feed"))?user={user.sub}" } ] }
            """)
        config.feature("forwarded", """
            { "id": "forwarded", "title": "Forwarded", "match": { "root": "hub:forwarded" },
              "operations": [ { "kind": "remote", "url": "\(content.url("/who"))", "forwardIdentity": { "header": "X-User-Id" } } ] }
            """)
        config["actions.json"] = """
            { "who": { "kind": "swift", "name": "who" },
              "remote": { "kind": "remote", "url": "\(content.url("/act/{action.name}"))", "forwardIdentity": { "header": "X-User-Id" } } }
            """
        return config
    }

    static func title(_ response: LoopbackResponse) throws -> String? {
        try response.json().component("feed")?["text"]?["title"]?.stringValue
    }

    @Test("{user.sub}: alice twice reaches the upstream once, bob once more with his name, anonymous is 401 with no upstream request")
    func memoizedPerUser() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.publish([key])
        let content = try contentUpstream()
        defer { content.stop() }
        let alice = bearer(try key.token(provider.claims("alice")))
        // Another token of alice's: the memo is the user's, not the token's.
        let aliceAgain = bearer(try key.token(provider.claims("alice", ["iat": Int(Date().timeIntervalSince1970) - 1])))
        let bob = bearer(try key.token(provider.claims("bob")))
        try await withHub(Self.config(provider: provider, content: content), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            for headers in [alice, aliceAgain] {
                let view = try await client.view("hub:mine", headers: headers)
                #expect(view.status == 200, "\(view)")
                #expect(try Self.title(view) == "q:alice,h:-")
            }
            #expect(content.log.hits(path: "/feed").map { $0.queryValue("user") } == ["alice"])
            let bobs = try await client.view("hub:mine", headers: bob)
            #expect(try Self.title(bobs) == "q:bob,h:-", "bob never gets alice's memoized view")
            #expect(try await client.view("hub:mine", headers: bob).status == 200)
            #expect(content.log.hits(path: "/feed").map { $0.queryValue("user") } == ["alice", "bob"])

            try expectAuthenticationRequired(try await client.view("hub:mine"))
            #expect(content.log.all.count == 2, "no upstream request for an anonymous view")
            #expect(try await client.view("hub:mine", headers: alice).status == 200)
            #expect(content.log.all.count == 2)
        }
    }

    @Test("forwardIdentity without identity.header: the upstream gets X-User-Id = the subject, never the client's own X-User-Id; per user, never shared")
    func forwardIdentity() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.ed25519(kid: "ed-1")
        provider.publish([key])
        let content = try contentUpstream()
        defer { content.stop() }
        let spoof = [("X-User-Id", "admin")]
        let alice = bearer(try key.token(provider.claims("alice"))) + spoof
        let bob = bearer(try key.token(provider.claims("bob"))) + spoof
        try await withHub(Self.config(provider: provider, content: content), extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            // Alice three times: the first learns the response's freshness, the second stores the
            // memo entry, the third is served from it; alice reaches the upstream once.
            for _ in 0..<3 {
                let aliceView = try await client.view("hub:forwarded", headers: alice)
                #expect(aliceView.status == 200, "\(aliceView)")
                #expect(try Self.title(aliceView) == "q:-,h:alice")
            }
            #expect(content.log.hits(path: "/who").count == 1)
            let bobView = try await client.view("hub:forwarded", headers: bob)
            #expect(try Self.title(bobView) == "q:-,h:bob", "the URL is the same: the memo still keys the user")
            let seen = content.log.hits(path: "/who").map { request in
                request.headers.filter { $0.name.lowercased() == "x-user-id" }.map(\.value)
            }
            #expect(seen == [["alice"], ["bob"]], "exactly the subject, once per request")

            // Anonymous, with or without its own X-User-Id: 401 before any upstream request.
            try expectAuthenticationRequired(try await client.view("hub:forwarded", headers: spoof))
            try expectAuthenticationRequired(try await client.view("hub:forwarded"))
            #expect(content.log.hits(path: "/who").count == 2)

            // A remote action namespace forwards the subject the same way.
            let session = try #require(try await client.view("hub:public", headers: alice).header("Hub-Session"))
            let action = try await client.action(#"{"session":"\#(session)","action":"remote:go"}"#, headers: alice)
            #expect(action.status == 200, "\(action)")
            let posted = content.log.hits(path: "/act/go")
            #expect(posted.count == 1)
            #expect(posted.first.map { $0.headers.filter { $0.name.lowercased() == "x-user-id" }.map(\.value) } == ["alice"])
            #expect(!content.log.all.contains { $0.headers.contains { $0.value == "admin" } }, "the client's X-User-Id never reached the upstream")
        }
    }
}
