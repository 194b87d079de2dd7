import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Every endpoint of the HTTP API (v1), in memory (the same bytes a socket carries); the event
/// stream over a real socket.
@Suite("Endpoints")
struct EndpointTests {
    @Test("A memoized chain's Server-Timing names every operation (memo) with zero duration, the same each time")
    func memoizedServerTiming() async throws {
        try await withStandardHub { client, _, _ in
            _ = try await client.view("hub:static")
            let expected = #"op0;desc="static (memo)";dur=0, op1;desc="static (memo)";dur=0"#
            for _ in 0..<3 {
                let response = try await client.view("hub:static")
                #expect(response.status == 200)
                #expect(response.header("Server-Timing") == expected)
            }
        }
    }

    @Test("GET /view?uri opens a session: Hub-Session, ETag, one Server-Timing entry per operation")
    func viewByURI() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.view("hub:static")
            #expect(response.status == 200, "\(response)")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            let session = try #require(response.header("Hub-Session"))
            #expect(!session.isEmpty)
            let etag = try #require(response.header("ETag"))
            #expect(etag.hasPrefix("\"") || etag.hasPrefix("W/\""))
            let timing = try #require(response.header("Server-Timing"))
            let entries = timing.split(separator: ",")
            #expect(entries.count == 2, "two operations, two entries: \(timing)")
            #expect(entries.allSatisfy { $0.contains("dur=") })
            #expect(response.header("X-Request-Id") != nil)
            let view = try response.json()
            #expect(view["title"]?.stringValue == "Static view")
            #expect(view.bodyIDs == ["a", "c"])
        }
    }

    @Test("X-Request-Id is echoed")
    func requestIDEchoed() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.get("/health", headers: [("X-Request-Id", "e2e-request-42")])
            #expect(response.header("X-Request-Id") == "e2e-request-42")
        }
    }

    @Test("reload always re-runs the chain on GET /view?session")
    func reloadAlways() async throws {
        try await withStandardHub { client, _, fixture in
            let first = try await client.view("hub:always")
            let session = try #require(first.header("Hub-Session"))
            #expect(fixture.always.count == 1)
            let second = try await client.session(session)
            #expect(second.status == 200)
            #expect(second.header("Hub-Session") == session)
            #expect(fixture.always.count == 2)
            #expect(try second.json()["custom"]?["runs"]?.intValue == 2)
        }
    }

    @Test("reload never keeps the view on GET /view?session")
    func reloadNever() async throws {
        try await withStandardHub { client, _, fixture in
            let first = try await client.view("hub:never")
            let session = try #require(first.header("Hub-Session"))
            for _ in 0..<3 {
                let again = try await client.session(session)
                #expect(again.status == 200)
                #expect(again.body == first.body)
            }
            #expect(fixture.never.count == 1)
        }
    }

    @Test("reload maxAgeSeconds becomes the feature's maxAge policy (measured by the engine's clock: ReloadPolicyTests)")
    func reloadMaxAge() async throws {
        let upstream = try makeStandardUpstream()
        defer { upstream.stop() }
        let fixture = Fixture()
        try await withHub(Fixture.config(upstream: upstream.base, server: TestConfig.defaultServer), extensions: fixture.extensions) {
            client, app async throws in
            #expect(app.engine.features.feature(for: "hub:maxage")?.reloadPolicy == .maxAge(.seconds(1)))
            let first = try await client.view("hub:maxage")
            #expect(first.status == 200, "\(first)")
            #expect(fixture.maxAge.count == 1)
        }
    }

    @Test("GET /view/initial returns only the initial content")
    func initialView() async throws {
        try await withStandardHub { client, _, _ in
            let initial = try await client.get("/view/initial?uri=hub:initial")
            #expect(initial.status == 200, "\(initial)")
            let view = try initial.json()
            #expect(view.bodyIDs == ["placeholder"])
            #expect(view.component("placeholder")?["text"]?["title"]?.stringValue == "Loading")
            let full = try await client.view("hub:initial")
            #expect(try full.json().bodyIDs.contains("full"))
        }
    }

    @Test("POST /view/next-page appends pages 1 and 2 of a paginated remote operation")
    func nextPage() async throws {
        try await withStandardHub { client, upstream, _ in
            let first = try await client.view("hub:pages")
            #expect(first.status == 200, "\(first)")
            #expect(try first.json().bodyIDs == ["p0"])
            let session = try #require(first.header("Hub-Session"))
            let second = try await client.post("/view/next-page", #"{"session":"\#(session)"}"#)
            #expect(second.status == 200, "\(second)")
            #expect(second.header("Hub-Session") == session)
            #expect(try second.json().bodyIDs == ["p0", "p1"])
            let third = try await client.post("/view/next-page", #"{"session":"\#(session)"}"#)
            #expect(try third.json().bodyIDs == ["p0", "p1", "p2"])
            #expect(upstream.log.hits(path: "/page").compactMap { $0.queryValue("n") } == ["0", "1", "2"])
        }
    }

    @Test("POST /view/next-page for an unknown session is 404")
    func nextPageUnknownSession() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(try await client.post("/view/next-page", #"{"session":"nope"}"#), 404, "session_not_found")
        }
    }

    @Test("DELETE /view revokes a token: 204, then the token is 404 everywhere in this process; DELETE again is 204 (idempotent)")
    func deleteView() async throws {
        try await withStandardHub { client, _, _ in
            let session = try #require(try await client.view("hub:static").header("Hub-Session"))
            let deleted = try await client.delete("/view?session=\(session)")
            #expect(deleted.status == 204, "\(deleted)")
            #expect(try await client.delete("/view?session=\(session)").status == 204, "revoked already: the same answer")
            try expectProblem(try await client.session(session), 404, "session_not_found")
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="revoked"}"#) == 2)
            try expectProblem(try await client.delete("/view?session=not-a-token"), 404, "session_not_found")
        }
    }

    @Test("GET /view/events: the first event is the current view, then one after an action")
    func serverSentEvents() async throws {
        try await withStandardHub(transport: .socket) { client, _, _ in
            let opened = try await client.view("hub:actions")
            let session = try #require(opened.header("Hub-Session"))
            let stream = try await client.events(session: session)
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.header("Content-Type")?.hasPrefix("text/event-stream") == true)
            let first = try await stream.next()
            #expect(first.event == "view")
            let firstView = try JSONParser().parse(first.data)
            #expect(firstView["custom"]?["runs"]?.intValue == 1)
            #expect(firstView.bodyIDs.contains("row1"))

            let action = try await client.action(#"{"session":"\#(session)","action":"test:bump"}"#)
            #expect(action.status == 200, "\(action)")
            var runs: Int?
            for _ in 0..<5 {
                let event = try await stream.next()
                #expect(event.event == "view")
                runs = try JSONParser().parse(event.data)["custom"]?["runs"]?.intValue
                if runs == 2 { break }
            }
            #expect(runs == 2)
        }
    }

    @Test("GET /view/events for an unknown session is 404")
    func eventsUnknownSession() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(try await client.get("/view/events?session=nope"), 404, "session_not_found")
        }
    }

    @Test("/health, /ready, /metrics, /features")
    func operationalEndpoints() async throws {
        try await withStandardHub { client, _, _ in
            let health = try await client.get("/health")
            #expect(health.status == 200)
            #expect(try health.json()["status"]?.stringValue == "ok")

            let ready = try await client.get("/ready")
            #expect(ready.status == 200)

            _ = try await client.view("hub:static")
            let metrics = try await client.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains("hub_http_requests_total{"))
            #expect(metrics.text.contains(#"route="/view""#), "\(metrics.text.prefix(2000))")

            let features = try await client.get("/features")
            #expect(features.status == 200)
            let list = try #require(try features.json()["features"]?.arrayValue)
            let ids = list.compactMap { $0["id"]?.stringValue }
            #expect(ids.contains("static") && ids.contains("pages") && ids.contains("actions"))
            let never = try #require(list.first { $0["id"]?.stringValue == "never" })
            #expect(never["title"]?.stringValue == "Never")
            #expect(never["reload"]?.stringValue == "never")
            #expect(never["predicate"]?.stringValue != nil)
            #expect(never["operations"]?.arrayValue?.count == 1)
        }
    }
}
