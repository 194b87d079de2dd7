import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// The ways around identity that the main suites do not walk: a client's own identity header
/// beside a valid bearer token, an action namespace that names the user for an anonymous
/// session, and a reload that puts an access rule on a feature with live anonymous sessions.
@Suite("Identity: the ways around it")
struct IdentityEdgeTests {
    @Test("X-User-Id beside a bearer token: 400 from an untrusted peer; from a trusted one the token's user, and forwardHeaders naming it send nothing")
    func clientHeaderBesideToken() async throws {
        let content = try contentUpstream()
        defer { content.stop() }
        let provider = try IdentityProvider()
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.publish([key])
        var config = IdentityConfig.config(
            server: IdentityConfig.server(
                identity: #""jwt": \#(provider.providerJSON()), "header": { "name": "X-User-Id" }"#, trusted: #"["127.0.0.1"]"#))
        config.feature("echo", """
            { "id": "echo", "title": "Echo", "match": { "root": "hub:echo" },
              "operations": [ { "kind": "remote", "url": "\(content.url("/echo"))", "forwardHeaders": ["X-User-Id"] } ] }
            """)
        try await withHub(config, extensions: IdentityConfig.extensions, transport: .socket) { hub, _ in
            let token = try key.token(provider.claims("alice"))
            try expectProblem(
                try await hub.from("127.0.0.2").view("hub:echo", headers: bearer(token) + [("X-User-Id", "bob")]), 400,
                "untrusted_identity")
            #expect(content.log.all.isEmpty)
            let client = hub.from("127.0.0.1")
            let response = try await client.view("hub:echo", headers: bearer(token) + [("X-User-Id", "bob")])
            #expect(response.status == 200, "\(response)")
            #expect(try response.json().component("feed")?["text"]?["title"]?.stringValue == "q:-,h:-")
            #expect(!content.log.all.contains { $0.header("X-User-Id") != nil }, "the client's X-User-Id never reached the upstream")
        }
    }

    @Test("a remote action namespace with forwardIdentity: an anonymous session's action is 401 and reaches no upstream")
    func anonymousActionNamingTheUser() async throws {
        let content = try contentUpstream()
        defer { content.stop() }
        let provider = try IdentityProvider()
        provider.publish([try await SigningKey.rsa(kid: "rsa-1")])
        var config = IdentityConfig.config(server: IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON())"#))
        config["actions.json"] = """
            { "who": { "kind": "swift", "name": "who" },
              "cart": { "kind": "remote", "url": "\(content.url("/cart/{action.name}"))", "forwardIdentity": { "header": "X-User-Id" } } }
            """
        try await withHub(config, extensions: IdentityConfig.extensions, transport: .socket) { client, _ in
            try expectAuthenticationRequired(try await client.action(#"{"uri":"hub:public","action":"cart:add"}"#))
            #expect(content.log.all.isEmpty, "nothing reached the cart upstream")
        }
    }

    @Test("a reload that puts an access rule on a feature ends its anonymous sessions: their token is 404, a new open 401")
    func reloadAddsAccess() async throws {
        let provider = try IdentityProvider()
        provider.publish([try await SigningKey.rsa(kid: "rsa-1")])
        let config = IdentityConfig.config(server: IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON())"#))
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, extensions: IdentityConfig.extensions, transport: .socket) { client, app in
            let opened = try await client.view("hub:public")
            let token = try #require(opened.header("Hub-Session"))
            #expect(try await client.session(token).status == 200)
            let locked = """
                { "id": "public", "title": "public", "match": { "root": "hub:public" }, "access": { "require": "user" },
                  "operations": [ { "kind": "swift", "name": "whoami" } ] }
                """
            try Data(locked.utf8).write(to: URL(fileURLWithPath: directory + "/features/public.json"))
            let result = await app.reloadConfiguration(trigger: "test")
            #expect(result.succeeded, "\(result.issues)")
            try expectProblem(try await client.session(token), 404, "session_not_found")
            try expectAuthenticationRequired(try await client.view("hub:public"))
        }
    }
}
