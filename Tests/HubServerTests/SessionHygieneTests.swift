import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Sessions are server state: a failed first load keeps none, and HEAD (a safe method) creates
/// none. Counted through `/metrics` and the engine's store, over HTTP (in memory).
@Suite("Session hygiene")
struct SessionHygieneTests {
    /// The standard fixture plus a failing feature whose upstream URL carries `{session}`, so
    /// the test learns the id of a session whose first load failed.
    /// Also `hub:failable`: a Swift operation that fails while `failing` is above zero.
    static func withFailingSessionHub(
        failing: Counter = Counter(), _ body: (HubClient, HubApplication, TestUpstream) async throws -> Void
    ) async throws {
        let upstream = try makeStandardUpstream()
        var extensions = Fixture().extensions
        extensions.registerOperation("failable") { _ in FailableOperation(failing: failing) }
        var config = Fixture.config(upstream: upstream.base)
        config.feature("failsession", """
            { "id": "failsession", "title": "Fail with session", "match": { "root": "hub:failsession" },
              "operations": [ { "kind": "remote", "url": "\(upstream.base)/status500?s={session}" } ] }
            """)
        config.feature("failable", """
            { "id": "failable", "title": "Failable", "match": { "root": "hub:failable" },
              "operations": [ { "kind": "swift", "name": "failable" } ] }
            """)
        do {
            try await withHub(config, extensions: extensions) { client, app in try await body(client, app, upstream) }
            upstream.stop()
        } catch {
            upstream.stop()
            throw error
        }
    }

    /// The value of one sample line of `/metrics` (`name` includes its labels, if any).
    static func metric(_ client: HubClient, _ name: String) async throws -> Double? {
        try await client.metric(name)
    }

    static func activeSessions(_ client: HubClient) async throws -> Double? {
        try await metric(client, "hub_sessions_active")
    }

    @Test("A failed first load (502, 504) keeps no session and names none; the id the chain saw is 404")
    func failedFirstLoadKeepsNoSession() async throws {
        try await Self.withFailingSessionHub { client, app, upstream in
            #expect(try await Self.activeSessions(client) == 0)
            for (uri, status, code) in [
                ("hub:failsession", 502, "upstream_error"), ("hub:fail", 502, "upstream_error"),
                ("hub:refused", 502, "upstream_error"), ("hub:slow", 504, "upstream_timeout"),
            ] {
                let response = try await client.view(uri)
                try expectProblem(response, status, code)
                #expect(response.header("Hub-Session") == nil, "\(uri): \(response)")
            }
            #expect(app.engine.sessions.count == 0)
            #expect(try await Self.activeSessions(client) == 0)
            #expect(try await Self.metric(client, "hub_sessions_created_total") == 4)
            #expect(try await Self.metric(client, #"hub_sessions_ended_total{reason="failed"}"#) == 4)
            #expect(try await Self.metric(client, #"hub_sessions_ended_total{reason="deleted"}"#) == 0)

            // The session the failing chain ran in (its id reached the upstream) is gone.
            let id = try #require(upstream.log.hits(path: "/status500").compactMap { $0.queryValue("s") }.first)
            #expect(!id.isEmpty)
            try expectProblem(try await client.session(id), 404, "session_not_found")

            // POST /action recovering with a uri whose first load fails: the same.
            let action = try await client.action(#"{"uri":"hub:fail","action":"test:ok"}"#)
            try expectProblem(action, 502, "upstream_error")
            #expect(action.header("Hub-Session") == nil, "\(action)")
            #expect(app.engine.sessions.count == 0)
            #expect(try await Self.activeSessions(client) == 0)

            // A view that loads keeps its session, as before (a Swift operation: not memoized, stored).
            let opened = try await client.view("hub:failable")
            #expect(opened.status == 200)
            let session = try #require(opened.header("Hub-Session"))
            #expect(app.engine.session(try #require(SessionToken.identifier(of: session))) != nil)
            #expect(try await Self.activeSessions(client) == 1)
        }
    }

    @Test("A failed reload of a session that has a view keeps the session and names it")
    func failedReloadKeepsSession() async throws {
        let failing = Counter()
        try await Self.withFailingSessionHub(failing: failing) { client, app, _ in
            let opened = try await client.view("hub:failable")
            #expect(opened.status == 200)
            let session = try #require(opened.header("Hub-Session"))
            failing.increment()
            let reloaded = try await client.session(session)  // reload "always": the chain re-runs and fails
            try expectProblem(reloaded, 500, "operation_failed")
            #expect(reloaded.header("Hub-Session") == session, "\(reloaded)")
            #expect(app.engine.session(try #require(SessionToken.identifier(of: session))) != nil)
            #expect(try await Self.activeSessions(client) == 1)
            #expect(try await Self.metric(client, #"hub_sessions_ended_total{reason="failed"}"#) == 0)
            // The same feature failing on a first load keeps nothing.
            try expectProblem(try await client.view("hub:failable"), 500, "operation_failed")
            #expect(try await Self.activeSessions(client) == 1)
        }
    }

    @Test("HEAD /view?uri answers GET's status and headers but keeps no session and sends no Hub-Session")
    func headKeepsNoSession() async throws {
        try await withStandardHub { client, _, _ in
            #expect(try await Self.activeSessions(client) == 0)
            let get = try await client.view("hub:static")
            #expect(get.status == 200)
            #expect(try await Self.activeSessions(client) == 1)

            let head = try await client.send("HEAD", "/view?uri=hub:static")
            #expect(head.status == 200, "\(head)")
            #expect(head.body.isEmpty)
            #expect(head.header("Hub-Session") == nil, "\(head)")
            #expect(head.header("ETag") != nil && head.header("ETag") == get.header("ETag"))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("Hub-Version") == get.header("Hub-Version"))
            #expect(head.header("Server-Timing") != nil)
            #expect(try await Self.activeSessions(client) == 1)
            #expect(try await Self.metric(client, "hub_sessions_created_total") == 1)

            // A conditional HEAD is a 304 like a conditional GET.
            let etag = try #require(get.header("ETag"))
            let conditional = try await client.send("HEAD", "/view?uri=hub:static", headers: [("If-None-Match", etag)])
            #expect(conditional.status == 304, "\(conditional)")
            #expect(conditional.header("Hub-Session") == nil)

            // A failing view: GET's status, no session.
            let failing = try await client.send("HEAD", "/view?uri=hub:fail")
            #expect(failing.status == 502, "\(failing)")
            #expect(failing.header("Content-Type")?.hasPrefix("application/problem+json") == true)
            #expect(failing.header("Hub-Session") == nil)
            #expect(try await client.send("HEAD", "/view?uri=hub:nothing-here").status == 404)

            // A session given but unknown falls back to uri, still without keeping one.
            let fallback = try await client.send("HEAD", "/view?session=gone&uri=hub:static")
            #expect(fallback.status == 200 && fallback.header("Hub-Session") == nil, "\(fallback)")

            #expect(try await Self.activeSessions(client) == 1)
            #expect(try await Self.metric(client, "hub_sessions_created_total") == 1)

            // HEAD of a live session names it, as GET does.
            let session = try #require(get.header("Hub-Session"))
            let live = try await client.send("HEAD", "/view?session=\(session)")
            #expect(live.status == 200 && live.header("Hub-Session") == session, "\(live)")
        }
    }
}

/// Shows one row, or throws while `failing` is above zero.
struct FailableOperation: ContentOperation {
    struct Failure: Error {}
    let failing: Counter

    var name: String { "failable" }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        if failing.count > 0 { throw Failure() }
        builder.body["row"].title = "Row"
    }
}
