import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// The `Hub-Session` request header: the routing key a balancer hashes on. Every
/// endpoint that takes a session accepts it besides its own `session` (query or body); the
/// two naming different sessions is 400 `session_mismatch`.
@Suite("Hub-Session request header")
struct SessionHeaderTests {
    @Test("the header alone names the session on GET, HEAD, POST /action, POST /view/next-page, events and DELETE")
    func headerOnEveryEndpoint() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let todo = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let header = [("Hub-Session", todo)]

            let view = try await client.get("/view", headers: header)
            #expect(view.status == 200, "\(view)")
            #expect(view.header("Hub-Session") == todo)
            let head = try await client.send("HEAD", "/view", headers: header)
            #expect(head.status == 200, "\(head)")
            #expect(head.header("Hub-Session") == todo)

            let action = try await client.action(#"{"action":"todo:add","custom":{"title":"by header"}}"#, headers: header)
            #expect(action.status == 200, "\(action)")
            #expect(action.header("Hub-Session") == todo)
            #expect(try action.json()["performed"]?.boolValue == true)
            let selection = try await client.action(#"{"component":"nothing-here"}"#, headers: header)
            try expectProblem(selection, 404, "component_not_found")

            let stream = try await client.events(target: "/view/events", headers: header)
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.header("Hub-Session") == todo)
            #expect(try await stream.next().data.contains("by header"))

            let pages = try #require(try await client.view("hub:pages").header("Hub-Session"))
            let next = try await client.post("/view/next-page", "{}", headers: [("Hub-Session", pages)])
            #expect(next.status == 200, "\(next)")
            #expect(try next.json().bodyIDs == ["page-0", "page-1"])

            let ended = try await client.send("DELETE", "/view", headers: header)
            #expect(ended.status == 204, "\(ended)")
            try expectProblem(try await client.get("/view", headers: header), 404, "session_not_found")
        }
    }

    @Test("the same token in the header and in the query or body is fine, on every endpoint")
    func sameTokenTwice() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let todo = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let header = [("Hub-Session", todo)]
            let query = "session=\(client.encode(todo))"
            #expect(try await client.get("/view?\(query)", headers: header).status == 200)
            #expect(try await client.send("HEAD", "/view?\(query)", headers: header).status == 200)
            let action = try await client.action(#"{"session":"\#(todo)","action":"todo:add","custom":{"title":"x"}}"#, headers: header)
            #expect(action.status == 200, "\(action)")
            let stream = try await client.events(target: "/view/events?\(query)", headers: header)
            #expect(stream.status == 200)
            stream.close()
            let pages = try #require(try await client.view("hub:pages").header("Hub-Session"))
            let next = try await client.post("/view/next-page", #"{"session":"\#(pages)"}"#, headers: [("Hub-Session", pages)])
            #expect(next.status == 200, "\(next)")
            #expect(try await client.send("DELETE", "/view?\(query)", headers: header).status == 204)
            // The same token in the header and the query: one session.
            let other = try #require(try await client.view("hub:todo").header("Hub-Session"))
            #expect(try await client.get("/view?session=\(other)", headers: [("Hub-Session", other)]).status == 200)
            // The identifier alone beside the token is not a token: the two do not name one session.
            let id = try #require(SessionToken.identifier(of: other))
            try expectProblem(try await client.get("/view?session=\(id)", headers: [("Hub-Session", other)]), 400, "session_mismatch")
        }
    }

    @Test("a header and a query or body naming different sessions is 400 session_mismatch; the header twice is 400")
    func mismatch() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let first = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let second = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let pages = try #require(try await client.view("hub:pages").header("Hub-Session"))
            let header = [("Hub-Session", first)]
            let query = "session=\(client.encode(second))"
            try expectProblem(try await client.get("/view?\(query)", headers: header), 400, "session_mismatch")
            try expectProblem(try await client.get("/view?\(query)&uri=hub:todo", headers: header), 400, "session_mismatch")
            #expect(try await client.send("HEAD", "/view?\(query)", headers: header).status == 400)
            try expectProblem(
                try await client.action(#"{"session":"\#(second)","action":"todo:add"}"#, headers: header), 400, "session_mismatch")
            try expectProblem(
                try await client.post("/view/next-page", #"{"session":"\#(pages)"}"#, headers: header), 400, "session_mismatch")
            let stream = try await client.events(target: "/view/events?\(query)", headers: header)
            #expect(stream.status == 400)
            stream.close()
            try expectProblem(try await client.send("DELETE", "/view?\(query)", headers: header), 400, "session_mismatch")
            // Garbage on one side names no session, so it cannot agree with the other.
            try expectProblem(try await client.get("/view?session=nope", headers: header), 400, "session_mismatch")
            // Nothing was performed or ended on either session.
            #expect(try await client.get("/view", headers: header).status == 200)
            #expect(try await client.session(second).status == 200)

            let twice = [("Hub-Session", first), ("Hub-Session", first)]
            try expectProblem(try await client.get("/view", headers: twice), 400, "duplicate_parameter")
            try expectProblem(try await client.send("DELETE", "/view", headers: twice), 400, "duplicate_parameter")
        }
    }

    @Test("garbage in the header is 404 (or falls back to uri); an empty header counts as absent")
    func garbageAndEmpty() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let garbage = [("Hub-Session", "nope")]
            try expectProblem(try await client.get("/view", headers: garbage), 404, "session_not_found")
            try expectProblem(try await client.action(#"{"action":"todo:add"}"#, headers: garbage), 404, "session_not_found")
            try expectProblem(try await client.post("/view/next-page", "{}", headers: garbage), 404, "session_not_found")
            let stream = try await client.events(target: "/view/events", headers: garbage)
            #expect(stream.status == 404)
            stream.close()
            try expectProblem(try await client.send("DELETE", "/view", headers: garbage), 404, "session_not_found")
            let recovered = try await client.get("/view?uri=hub:todo", headers: garbage)
            #expect(recovered.status == 200, "an unknown session with uri opens a new one")
            #expect(recovered.header("Hub-Session")?.hasPrefix("nope") == false)

            let empty = [("Hub-Session", "")]
            try expectProblem(try await client.get("/view", headers: empty), 400, "missing_uri")
            try expectProblem(try await client.send("DELETE", "/view", headers: empty), 400, "missing_session")
            try expectProblem(try await client.post("/view/next-page", "{}", headers: empty), 422, "invalid_body")
            try expectProblem(try await client.action(#"{"action":"todo:add"}"#, headers: empty), 422, "invalid_body")
            let todo = try #require(try await client.view("hub:todo").header("Hub-Session"))
            #expect(try await client.session(todo, headers: empty).status == 200)
        }
    }

    @Test("a token sent as a header to another replica rebuilds the session there, and the view does not keep it")
    func headerRebuildsOnAnotherReplica() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { first, _ in
            try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { second, _ in
                let token = try #require(try await first.view("hub:headers").header("Hub-Session"))
                let view = try await second.get("/view", headers: [("Hub-Session", token), ("Hub-Client", "web/1")])
                #expect(view.status == 200, "\(view)")
                #expect(view.header("Hub-Session") == token)
                #expect(try await second.metric(#"hub_sessions_rebuilt_total{reason="unknown"}"#) == 1)
                let names = try view.json()["custom"]?["headers"]?.arrayValue?.compactMap(\.stringValue) ?? []
                #expect(names.contains("hub-client"))
                #expect(!names.contains("hub-session"), "the token is not kept in the session's request")
            }
        }
    }
}
