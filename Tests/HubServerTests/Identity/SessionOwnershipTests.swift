import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// A session a user opened is theirs (the token's MAC covers the subject): another user's
/// credentials, or none, find nothing on any endpoint that uses it (404 `session_not_found`,
/// nothing changed); only the event stream takes the held token alone, as EventSource sends no
/// credentials.
@Suite("Identity: sessions bound to their user")
struct SessionOwnershipTests {
    @Test("alice's session with bob's token or with none: 404 session_not_found on GET /view, POST /action, POST /view/next-page, DELETE /view; alice's still works")
    func otherUsersFindNothing() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.rsa(kid: "rsa-1")
        provider.publish([key])
        let alice = bearer(try key.token(provider.claims("alice")))
        let bob = bearer(try key.token(provider.claims("bob")))
        try await BearerTokenTests.withIdentityHub(provider) { client in
            for feature in ["hub:protected", "hub:public"] {
                let opened = try await client.view(feature, headers: alice)
                #expect(opened.status == 200)
                let token = try #require(opened.header("Hub-Session"))
                let encoded = client.encode(token)
                for headers in [bob, []] {
                    try expectProblem(try await client.session(token, headers: headers), 404, "session_not_found")
                    try expectProblem(
                        try await client.action(#"{"session":"\#(token)","action":"who:ping"}"#, headers: headers), 404,
                        "session_not_found")
                    try expectProblem(
                        try await client.post("/view/next-page", #"{"session":"\#(token)"}"#, headers: headers), 404, "session_not_found")
                    try expectProblem(
                        try await client.send("DELETE", "/view?session=\(encoded)", headers: headers), 404, "session_not_found")
                }
                // Nothing above touched it: alice's session is there, unchanged, and hers to use.
                let again = try await client.session(token, headers: alice)
                #expect(again.status == 200, "\(feature): \(again)")
                #expect(try again.json()["custom"]?["who"]?.stringValue == "alice")
                #expect(try await client.post("/view/next-page", #"{"session":"\#(token)"}"#, headers: alice).status == 200)
                let action = try await client.action(#"{"session":"\#(token)","action":"who:ping"}"#, headers: alice)
                #expect(action.status == 200, "\(action)")
                #expect(try await client.send("DELETE", "/view?session=\(encoded)", headers: alice).status == 204)
                try expectProblem(try await client.session(token, headers: alice), 404, "session_not_found")
            }
        }
    }

    @Test("an anonymous session is not a user's: alice's token finds nothing on it")
    func anonymousSessionIsNotAlices() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.p256(kid: "ec-1")
        provider.publish([key])
        let alice = bearer(try key.token(provider.claims("alice")))
        try await BearerTokenTests.withIdentityHub(provider) { client in
            let token = try #require(try await client.view("hub:public").header("Hub-Session"))
            try expectProblem(try await client.session(token, headers: alice), 404, "session_not_found")
            try expectProblem(
                try await client.action(#"{"session":"\#(token)","action":"who:ping"}"#, headers: alice), 404, "session_not_found")
            #expect(try await client.session(token).status == 200)
        }
    }

    @Test("GET /view/events with alice's held token and no credentials streams her view; with bob's token it is 404")
    func eventStreamTakesTheTokenAlone() async throws {
        let provider = try IdentityProvider()
        let key = try await SigningKey.ed25519(kid: "ed-1")
        provider.publish([key])
        let alice = bearer(try key.token(provider.claims("alice")))
        let bob = bearer(try key.token(provider.claims("bob")))
        try await BearerTokenTests.withIdentityHub(provider) { client in
            let token = try #require(try await client.view("hub:protected", headers: alice).header("Hub-Session"))
            let refused = try await client.send(
                "GET", "/view/events?session=\(client.encode(token))", headers: bob + [("Accept", "text/event-stream")])
            try expectProblem(refused, 404, "session_not_found")

            let stream = try await client.events(session: token)
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.header("Content-Type")?.hasPrefix("text/event-stream") == true)
            var event = try await stream.next()
            while event.event != "view" { event = try await stream.next() }
            #expect(try JSONParser().parse(event.data)["custom"]?["who"]?.stringValue == "alice")
        }
    }
}
