import Foundation
import HubEngine
import HubHTTP
@testable import HubServer
import HubTestSupport
import Testing

/// `GET /view?session=` of a settled view (a held session, a memo hit) is answered now, on the
/// connection's loop, with no task (``HTTPServer/requestsAnsweredLater`` does not move), through
/// the whole middleware stack; the rest is work for later. Both answer alike and count each
/// request once.
@Suite("Immediate view answers")
struct ImmediateViewTests {
    static let requests = #"hub_http_requests_total{route="/view",method="GET",status="200"}"#

    /// The standard fixture's hub on a socket (the immediate path is the connection's).
    static func withSocketHub(_ body: (HubClient, HubApplication, Fixture) async throws -> Void) async throws {
        let upstream = try makeStandardUpstream()
        defer { upstream.stop() }
        let fixture = Fixture()
        try await withHub(Fixture.config(upstream: upstream.base), extensions: fixture.extensions, transport: .socket) { client, app in
            try await body(client, app, fixture)
        }
    }

    @Test("a settled view over a socket is the answer the asynchronous path gives, byte for byte")
    func sameAnswerBothWays() async throws {
        try await Self.withSocketHub { client, app, fixture in
            // hub:big: reload never, and a body gzip compresses.
            let token = try #require(try await client.view("hub:big").header("Hub-Session"))
            // The first use stores the lazily opened session (asynchronous); from then on it is held and settled.
            #expect(try await client.session(token).status == 200)
            let tasks = app.http.requestsAnsweredLater
            let overSocket = try await client.session(token, headers: [("Accept-Encoding", "gzip")])
            #expect(app.http.requestsAnsweredLater == tasks, "a settled view of a held session started a task")
            let inMemory = await app.respond(
                to: HTTPRequest(
                    method: .get, target: "/view?session=\(client.encode(token))", headers: ["Accept-Encoding": "gzip", "Host": "x"]))
            #expect(overSocket.status == 200)
            #expect(inMemory.status.code == 200)
            #expect(overSocket.body == inMemory.body.bytes)
            for name in ["Content-Type", "Cache-Control", "Hub-Session", "Hub-Version", "Server-Timing", "Vary", "ETag", "Content-Encoding"] {
                #expect(overSocket.header(name) != nil, "\(name) missing from \(overSocket.headers)")
                #expect(overSocket.header(name) == inMemory.headers[name], "\(name)")
            }
            #expect(overSocket.header("Hub-Session") == token)
            #expect(overSocket.header("Content-Encoding") == "gzip", "a body over gzip.minBytes")
            // Revalidation is answered now too.
            let etag = try #require(overSocket.header("ETag"))
            let revalidated = try await client.session(token, headers: [("Accept-Encoding", "gzip"), ("If-None-Match", etag)])
            #expect(revalidated.status == 304)
            #expect(app.http.requestsAnsweredLater == tasks, "a revalidated settled view started a task")
            #expect(revalidated.header("ETag") == etag)
        }
    }

    @Test("every request is counted once, whether answered now, later, or refused")
    func countedOnce() async throws {
        try await Self.withSocketHub { client, app, fixture in
            let never = try #require(try await client.view("hub:never").header("Hub-Session"))
            let always = try #require(try await client.view("hub:always").header("Hub-Session"))
            let runsBefore = fixture.always.count
            let before = try await client.metric(Self.requests) ?? 0
            let refusedBefore = try await client.metric(#"hub_http_requests_total{route="/view",method="GET",status="400"}"#) ?? 0
            #expect(try await client.session(never).status == 200)  // its first use publishes its settled view
            let tasks = app.http.requestsAnsweredLater
            for _ in 0..<3 {
                #expect(try await client.session(never).status == 200)  // answered now
                #expect(try await client.session(always).status == 200)  // the session decides: later
            }
            // A 400 of the parameters is answered now.
            let duplicate = try await client.get("/view?session=\(client.encode(never))&session=\(client.encode(never))")
            #expect(duplicate.status == 400)
            #expect(app.http.requestsAnsweredLater == tasks + 3, "one task per load the session decides, none for the rest")
            #expect(try await client.metric(Self.requests) == before + 7)
            #expect(try await client.metric(#"hub_http_requests_total{route="/view",method="GET",status="400"}"#) == refusedBefore + 1)
            #expect(fixture.always.count == runsBefore + 3, "reload always: the chain ran for each request")
            #expect(fixture.never.count == 1)
        }
    }

    @Test("a memoized view opened over a socket is answered now, as in memory, with its own lazy token, and stores nothing")
    func memoizedOpenBothWays() async throws {
        try await Self.withSocketHub { client, app, fixture in
            _ = try await client.view("hub:big")  // runs the chain once; memoized from then on
            let sessionsBefore = try await client.metric("hub_sessions_created_total")
            var tokens: Set<String> = []
            for _ in 0..<3 {
                let tasks = app.http.requestsAnsweredLater
                let overSocket = try await client.view("hub:big", headers: [("Accept-Encoding", "gzip")])
                #expect(app.http.requestsAnsweredLater == tasks, "a memo hit started a task")
                let inMemory = await app.respond(
                    to: HTTPRequest(method: .get, target: "/view?uri=hub:big", headers: ["Accept-Encoding": "gzip", "Host": "x"]))
                #expect(overSocket.status == 200)
                #expect(overSocket.body == inMemory.body.bytes)
                for name in ["Content-Type", "Cache-Control", "Hub-Version", "Server-Timing", "Vary", "ETag", "Content-Encoding"] {
                    #expect(overSocket.header(name) == inMemory.headers[name], "\(name)")
                }
                let token = try #require(overSocket.header("Hub-Session"))
                let parsed = try app.engine.verify(token).get()
                #expect(parsed.lazy, "a memo hit stores no session: its token is lazy")
                #expect(parsed.viewURI == "hub:big")
                tokens.insert(token)
            }
            #expect(tokens.count == 3, "a new session id for every view opened")
            #expect(try await client.metric("hub_sessions_created_total") == sessionsBefore)
            // The first use of a lazy token stores its session.
            #expect(try await client.session(try #require(tokens.first)).status == 200)
            #expect(try await client.metric("hub_sessions_created_total") == (sessionsBefore ?? 0) + 1)
        }
    }
}
