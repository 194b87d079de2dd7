import Foundation
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// `StateScope.user` over real sockets: state that follows the verified user from session to
/// session (a write on one pushes the new view to the user's other streamed session), never
/// reaches another user, and needs a user (401 `authentication_required` for anonymous).
@Suite("Identity: user-scoped state")
struct UserStateTests {
    /// Shows the user's `favorites` (a body row each; `custom.favorites`).
    struct Favorites: ContentOperation {
        var name: String { "favorites" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            let items = try await context.state.read("favorites", in: .user)?.value.arrayValue ?? []
            for (index, item) in items.enumerated() {
                builder.body.update("fav-\(index)") { $0.title = item.stringValue ?? "" }
            }
            builder.setCustomDataValue(.array(items), forKey: "favorites")
        }
    }

    static var extensions: SwiftExtensions {
        var extensions = IdentityConfig.extensions
        extensions.registerOperation("favorites") { _ in Favorites() }
        extensions.registerActionFactory("fav", ClosureActionFactory([
            "add": { context in
                let item = context.customData?["item"]?.stringValue ?? "?"
                try await context.state.update("favorites", in: .user) { value in
                    value = .array((value?.arrayValue ?? []) + [.string(item)])
                    return true
                }
                return .performed
            },
        ]))
        return extensions
    }

    static func config(provider: IdentityProvider) -> TestConfig {
        var config = IdentityConfig.config(server: IdentityConfig.server(identity: #""jwt": \#(provider.providerJSON())"#))
        config.feature("favorites", """
            { "id": "favorites", "title": "Favorites", "match": { "root": "hub:favorites" },
              "operations": [ { "kind": "swift", "name": "favorites" } ] }
            """)
        config["actions.json"] = #"{ "who": { "kind": "swift", "name": "who" }, "fav": { "kind": "swift", "name": "fav" } }"#
        return config
    }

    /// The `custom.favorites` of every `view` event a stream pushed, read in the background.
    final class PushedViews: Sendable {
        private let views = Locked<[[String]]>([])
        var all: [[String]] { views.withLock { $0 } }

        /// Reads `stream` until it ends (closed by the test).
        func follow(_ stream: SSEStream) -> Task<Void, Never> {
            Task {
                while let event = try? await stream.next() {
                    guard event.event == "view", let view = try? JSONParser().parse(event.data) else { continue }
                    let items = view["custom"]?["favorites"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    views.withLock { $0.append(items) }
                }
            }
        }
    }

    static func favorites(_ response: LoopbackResponse) throws -> [String] {
        try response.json()["custom"]?["favorites"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test("alice adds on session A: her session B (another token), streamed, receives the new view; bob's stream and view never have her item")
    func followsTheUser() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.publish([key])
        // Subjects of this test's own: user state lives in the test process's store, shared by every test.
        let aliceID = "alice-\(UUID().uuidString)"
        let aliceA = bearer(try key.token(provider.claims(aliceID)))
        let aliceB = bearer(try key.token(provider.claims(aliceID, ["iat": Int(Date().timeIntervalSince1970) - 1])))
        let bob = bearer(try key.token(provider.claims("bob-\(UUID().uuidString)")))
        try await withHub(Self.config(provider: provider), extensions: Self.extensions, transport: .socket) { client, _ in
            let sessionA = try #require(try await client.view("hub:favorites", headers: aliceA).header("Hub-Session"))
            let sessionB = try #require(try await client.view("hub:favorites", headers: aliceB).header("Hub-Session"))
            let sessionBob = try #require(try await client.view("hub:favorites", headers: bob).header("Hub-Session"))
            #expect(sessionA != sessionB)

            let streamB = try await client.events(session: sessionB)
            let streamBob = try await client.events(session: sessionBob)
            #expect(streamB.status == 200 && streamBob.status == 200)
            let pushedB = PushedViews()
            let pushedBob = PushedViews()
            let readers = [pushedB.follow(streamB), pushedBob.follow(streamBob)]
            defer {
                streamB.close()
                streamBob.close()
                for reader in readers { reader.cancel() }
            }
            // Both streams have sent their first view: the sessions are listened to.
            #expect(await eventually { pushedB.all.count >= 1 && pushedBob.all.count >= 1 })
            #expect(pushedB.all.first == [] && pushedBob.all.first == [])

            let added = try await client.action(
                #"{"session":"\#(sessionA)","action":"fav:add","custom":{"item":"tea"}}"#, headers: aliceA)
            #expect(added.status == 200, "\(added)")
            #expect(try await client.session(sessionA, headers: aliceA).status == 200)
            #expect(await eventually(within: 30) { pushedB.all.last == ["tea"] }, "B, alice's other session, is pushed her new list")
            #expect(try Self.favorites(try await client.session(sessionB, headers: aliceB)) == ["tea"])

            // Bob's list is his own: his view after alice's write lacks her item, and so does everything pushed to him.
            #expect(try Self.favorites(try await client.session(sessionBob, headers: bob)) == [])
            let bobAdded = try await client.action(
                #"{"session":"\#(sessionBob)","action":"fav:add","custom":{"item":"coffee"}}"#, headers: bob)
            #expect(bobAdded.status == 200)
            #expect(await eventually(within: 30) { pushedBob.all.last == ["coffee"] })
            #expect(!pushedBob.all.contains { $0.contains("tea") }, "\(pushedBob.all)")
            #expect(!pushedB.all.contains { $0.contains("coffee") }, "\(pushedB.all)")
            #expect(try Self.favorites(try await client.session(sessionA, headers: aliceA)) == ["tea"])

            // A new session of alice's, on a third token, starts with her list.
            let aliceC = bearer(try key.token(provider.claims(aliceID, ["iat": Int(Date().timeIntervalSince1970) - 2])))
            #expect(try Self.favorites(try await client.view("hub:favorites", headers: aliceC)) == ["tea"])
        }
    }

    @Test("anonymous use of .user state: reading it is 401 authentication_required, writing it too, and nothing is stored")
    func anonymousNeedsAUser() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.p256(kid: "ec-1")
        provider.publish([key])
        try await withHub(Self.config(provider: provider), extensions: Self.extensions, transport: .socket) { client, _ in
            try expectAuthenticationRequired(try await client.view("hub:favorites"))
            let anonymous = try #require(try await client.view("hub:public").header("Hub-Session"))
            let refused = try await client.action(#"{"session":"\#(anonymous)","action":"fav:add","custom":{"item":"x"}}"#)
            try expectAuthenticationRequired(refused)
            // The same on a signed-in session works, and finds no anonymous leftovers.
            let alice = bearer(try key.token(provider.claims("alice-\(UUID().uuidString)")))
            let view = try await client.view("hub:favorites", headers: alice)
            #expect(view.status == 200)
            #expect(try Self.favorites(view) == [])
        }
    }
}
