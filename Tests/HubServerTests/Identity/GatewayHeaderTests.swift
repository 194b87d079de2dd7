import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// `identity.header` over real sockets: the header names the user only from a peer in
/// `trustedProxies`; from any other peer it is 400 `untrusted_identity` and reaches no upstream;
/// a verified bearer token outranks it.
@Suite("Identity: a trusted gateway's user header")
struct GatewayHeaderTests {
    /// The standard features, plus `mine` (`hub:mine`: the feed of `{user.sub}`) and `echo`
    /// (`hub:echo`: public, the feed with the caller's `X-User-Id` forwarded).
    static func config(identity: String, trusted: String, content: TestUpstream) -> TestConfig {
        var config = IdentityConfig.config(server: IdentityConfig.server(identity: identity, trusted: trusted))
        config.feature("mine", """
            { "id": "mine", "title": "Mine", "match": { "root": "hub:mine" },
              "operations": [ { "kind": "remote", "url": "\(content.url("/feed"))?user={user.sub}" } ] }
            """)
        config.feature("echo", """
            { "id": "echo", "title": "Echo", "match": { "root": "hub:echo" },
              "operations": [ { "kind": "remote", "url": "\(content.url("/echo"))", "forwardHeaders": ["X-User-Id"] } ] }
            """)
        return config
    }

    static func title(_ response: LoopbackResponse) throws -> String? {
        try response.json().component("feed")?["text"]?["title"]?.stringValue
    }

    @Test("X-User-Id from a peer outside trustedProxies: 400 untrusted_identity on every endpoint, and the upstream never sees it")
    func untrustedPeer() async throws {
        let content = try contentUpstream()
        defer { content.stop() }
        let config = Self.config(identity: #""header": { "name": "X-User-Id" }"#, trusted: "[]", content: content)
        try await withHub(config, extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            let spoofed = [("X-User-Id", "alice")]
            for feature in ["hub:echo", "hub:mine", "hub:public", "hub:protected"] {
                try expectProblem(try await client.view(feature, headers: spoofed), 400, "untrusted_identity")
            }
            try expectProblem(try await client.get("/features", headers: spoofed), 400, "untrusted_identity")
            try expectProblem(
                try await client.action(#"{"uri":"hub:echo","action":"who:ping"}"#, headers: spoofed), 400, "untrusted_identity")
            // Without it the same client is anonymous and the upstream is reached.
            let echo = try await client.view("hub:echo")
            #expect(echo.status == 200, "\(echo)")
            #expect(try Self.title(echo) == "q:-,h:-")
            try expectAuthenticationRequired(try await client.view("hub:mine"))
            #expect(content.log.all.count == 1)
            #expect(!content.log.all.contains { $0.header("X-User-Id") != nil }, "X-User-Id never reached the upstream")
        }
    }

    @Test("from a trusted proxy (127.0.0.1) the header is the user: {user.sub} carries it; from 127.0.0.2 it is refused")
    func trustedProxy() async throws {
        let content = try contentUpstream()
        defer { content.stop() }
        let config = Self.config(identity: #""header": { "name": "X-User-Id" }"#, trusted: #"["127.0.0.1"]"#, content: content)
        try await withHub(config, extensions: IdentityConfig.extensions, transport: .socket) { hub, _ in
            let proxy = hub.from("127.0.0.1")
            let mine = try await proxy.view("hub:mine", headers: [("X-User-Id", "alice")])
            #expect(mine.status == 200, "\(mine)")
            #expect(try Self.title(mine) == "q:alice,h:-")
            #expect(content.log.hits(path: "/feed").map { $0.queryValue("user") } == ["alice"])
            let protected = try await proxy.view("hub:protected", headers: [("X-User-Id", "alice")])
            #expect(try protected.json()["custom"]?["who"]?.stringValue == "alice")
            try expectAuthenticationRequired(try await proxy.view("hub:protected"))

            try expectProblem(try await hub.from("127.0.0.2").view("hub:mine", headers: [("X-User-Id", "mallory")]), 400, "untrusted_identity")
            #expect(!content.log.all.contains { $0.queryValue("user") == "mallory" })
        }
    }

    @Test("a subject is its bytes: a composed and a decomposed accent are two users, however often each is named")
    func subjectsAreBytes() async throws {
        let content = try contentUpstream()
        defer { content.stop() }
        let config = Self.config(identity: #""header": { "name": "X-User-Id" }"#, trusted: #"["127.0.0.1"]"#, content: content)
        try await withHub(config, extensions: IdentityConfig.extensions, transport: .socket) { hub, _ in
            let proxy = hub.from("127.0.0.1")
            // Equal as Swift strings (canonically equivalent), different as bytes.
            let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
            #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
            // Enough requests that each event loop names each subject more than once.
            for _ in 0..<(2 * max(2, ProcessInfo.processInfo.activeProcessorCount)) {
                for subject in [composed, decomposed] {
                    let view = try await proxy.view("hub:protected", headers: [("X-User-Id", subject)])
                    let who = try #require(try view.json()["custom"]?["who"]?.stringValue, "\(view)")
                    #expect(Array(who.utf8) == Array(subject.utf8), "\(Array(who.utf8)) for \(Array(subject.utf8))")
                }
            }
        }
    }

    @Test("a bearer token and the header from a trusted peer: the token's user wins")
    func tokenOutranksHeader() async throws {
        let content = try contentUpstream()
        defer { content.stop() }
        let provider = try IdentityProvider()
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.publish([key])
        let config = Self.config(
            identity: #""jwt": \#(provider.providerJSON()), "header": { "name": "X-User-Id" }"#, trusted: #"["127.0.0.1"]"#,
            content: content)
        try await withHub(config, extensions: IdentityConfig.extensions, transport: .socket) { hub, _ in
            let proxy = hub.from("127.0.0.1")
            let headers = bearer(try key.token(provider.claims("bob"))) + [("X-User-Id", "alice")]
            let mine = try await proxy.view("hub:mine", headers: headers)
            #expect(mine.status == 200, "\(mine)")
            #expect(try Self.title(mine) == "q:bob,h:-")
            let protected = try await proxy.view("hub:protected", headers: headers)
            #expect(try protected.json()["custom"]?["who"]?.stringValue == "bob")
            #expect(content.log.hits(path: "/feed").map { $0.queryValue("user") } == ["bob"])
            // A bad token is refused even beside a header the proxy vouches for.
            try expectInvalidToken(try await proxy.view("hub:protected", headers: bearer("x.y.z") + [("X-User-Id", "alice")]))
        }
    }
}
