import Foundation
import HubModel
import HubTestSupport
import Testing

/// Session cap, feature order, built-in actions, concurrency.
@Suite("Sessions, order and concurrency")
struct SessionAndOrderTests {
    @Test("sessions.max evicts the least recently used unused session; its token rebuilds it (reason evicted)")
    func sessionCap() async throws {
        let server = #"{ "host": "127.0.0.1", "port": 0, "sessions": { "max": 2 }, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }"#
        try await withStandardHub(server: server) { client, _, _ in
            // hub:pages runs a remote operation each time (not memoized): its sessions are stored.
            let first = try #require(try await client.view("hub:pages").header("Hub-Session"))
            let second = try #require(try await client.view("hub:pages").header("Hub-Session"))
            let third = try #require(try await client.view("hub:pages").header("Hub-Session"))
            let metrics = try await client.get("/metrics").text
            #expect(metrics.contains(#"hub_sessions_ended_total{reason="evicted"} 1"#), "\(metrics)")
            // The first (the least recently used, never used again) was evicted: its token rebuilds it.
            let rebuilt = try await client.session(first)
            #expect(rebuilt.status == 200)
            #expect(rebuilt.header("Hub-Session") == first, "the same token")
            #expect(try await client.get("/metrics").text.contains(#"hub_sessions_rebuilt_total{reason="evicted"} 1"#))
            _ = (second, third)
        }
    }

    @Test("features are tried by order, then file name; the first match wins")
    func featureOrder() async throws {
        var config = TestConfig()
        config.feature("a-late", #"{ "id": "late", "title": "Late", "order": 20, "match": { "root": "hub:x" }, "operations": [ { "kind": "static", "json": { "body": [ { "id": "late" } ] } } ] }"#)
        config.feature("b-early", #"{ "id": "early", "title": "Early", "order": 10, "match": { "root": "hub:x" }, "operations": [ { "kind": "static", "json": { "body": [ { "id": "early" } ] } } ] }"#)
        config.feature("c-tie", #"{ "id": "tie", "title": "Tie", "order": 10, "match": { "root": "hub:x" }, "operations": [ { "kind": "static", "json": { "body": [ { "id": "tie" } ] } } ] }"#)
        try await withHub(config) { client, _ in
            #expect(try await client.view("hub:x:1").json().bodyIDs == ["early"])
            let ids = try await client.get("/features").json()["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(ids == ["early", "tie", "late"])
        }
    }

    @Test("hub:next-page as an action appends the next page")
    func nextPageAction() async throws {
        try await withStandardHub { client, _, _ in
            let session = try #require(try await client.view("hub:pages").header("Hub-Session"))
            let response = try await client.action(#"{"session":"\#(session)","action":"hub:next-page"}"#)
            #expect(response.status == 200, "\(response)")
            #expect(try response.json()["view"]?.bodyIDs == ["p0", "p1"])
        }
    }

    @Test("an action with a component sends the component to a remote action; charset in Content-Type is fine")
    func remoteActionWithComponent() async throws {
        try await withStandardHub { client, upstream, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let response = try await client.post(
                "/action", #"{"session":"\#(session)","action":"remote:ok","component":"row2"}"#,
                contentType: "application/json; charset=utf-8")
            #expect(response.status == 200, "\(response)")
            let hit = try #require(upstream.log.hits(path: "/act/ok").first)
            let sent = try JSONParser().parse(hit.body)
            #expect(sent["component"]?.stringValue == "row2")
            #expect(sent["custom"] == nil)
        }
    }

    @Test("concurrent views and actions on many sessions all succeed")
    func concurrency() async throws {
        try await withStandardHub { client, _, fixture in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        switch index % 3 {
                        case 0: return try await client.view(["hub:static", "hub:remote", "hub:patch", "hub:custom"][index % 4]).status
                        case 1: return try await client.action(#"{"session":"\#(session)","action":"test:bump"}"#).status
                        default: return try await client.session(session).status
                        }
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count == 24)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
            #expect(fixture.actionLog.all.count == 8)
            let final = try await client.session(session)
            #expect(final.status == 200)
            #expect(try final.json()["custom"]?["runs"]?.intValue == fixture.observer.count)
        }
    }

    @Test("HEAD is served like GET without a body")
    func head() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.send("HEAD", "/health")
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
        }
    }
}
