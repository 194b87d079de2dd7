import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Replicas sharing one PostgreSQL (a throwaway cluster on loopback): a list changed on either
/// replica is the same list on both, pushed to listeners on the other one; a revocation holds
/// everywhere; a database that goes away costs no acknowledged write and no restart.
@Suite("Shared state across replicas (PostgreSQL)", .serialized)
struct SharedStateTests {
    static let server = """
        { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "timeouts": { "drainSeconds": 1 },
          "limits": { "sessionsPerClient": { "perSecond": 10000, "burst": 10000 },
                      "actionsPerClient": { "perSecond": 10000, "burst": 10000 }, "connections": 2000 } }
        """

    static func environment(_ cluster: PostgresCluster) -> [String: String] {
        var environment = testEnvironment
        environment["HUB_STATE_BACKEND"] = "postgres"
        environment["HUB_STATE_URL"] = cluster.url
        return environment
    }

    /// Two replicas (own processes' worth: own engines, stores and sockets) on one database.
    static func withReplicas(
        _ cluster: PostgresCluster, _ body: (HubClient, HubClient, HubApplication, HubApplication) async throws -> Void
    ) async throws {
        let extensions = Hardening.extensions(store: TodoStore(maximumItems: 1000))
        let config = Hardening.config(server: server)
        try await withHub(config, extensions: extensions, environment: environment(cluster), transport: .socket) { a, appA in
            try await withHub(config, extensions: extensions, environment: environment(cluster), transport: .socket) { b, appB in
                try await body(a, b, appA, appB)
            }
        }
    }

    @Test("200 concurrent todo:add on one token, half to each replica: exactly 200 items, the same view on both, and B's listener sees A's adds")
    func concurrentAddsAcrossReplicas() async throws {
        let cluster = try PostgresCluster.shared()
        try await Self.withReplicas(cluster) { a, b, _, _ in
            let token = try #require(try await a.view("hub:todo").header("Hub-Session"))
            #expect(try await b.session(token).status == 200, "replica B rebuilds the session from the token")
            let stream = try await b.events(session: token)
            defer { stream.close() }
            _ = try await stream.next()
            // B's change feed is up before A writes (else B learns of them from its resync instead).
            #expect(await eventually { (try? await b.get("/ready").json()["state"]?["changeFeed"]?.boolValue) == true })

            let clear = try await a.action(#"{"session":"\#(token)","action":"todo:clear"}"#)
            #expect(clear.status == 200)
            let failures = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let replica = index.isMultiple(of: 2) ? a : b
                        let response = try await replica.action(
                            #"{"session":"\#(token)","action":"todo:add","custom":{"title":"item \#(index)"}}"#)
                        let performed = try response.json()["performed"]?.boolValue == true
                        return response.status == 200 && performed ? 0 : 1
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(failures == 0, "every add was acknowledged")
            let viewA = try await a.session(token)
            #expect(try viewA.json()["custom"]?["todoCount"]?.intValue == 200)
            #expect(await eventually { (try? await b.session(token).json()["custom"]?["todoCount"]?.intValue) == 200 })
            #expect(try await b.session(token).body == viewA.body, "both replicas serve the same view")
            // The listener on B saw a view with all 200 (pushed, not asked for).
            var pushedCount = 0
            while pushedCount < 200 {
                let event = try await stream.next()
                pushedCount = try JSONParser().parse(event.data)["custom"]?["todoCount"]?.intValue ?? pushedCount
            }
            #expect(pushedCount == 200)
        }
    }

    @Test("DELETE on replica A revokes the token on replica B, which held the session")
    func revocationCrossesReplicas() async throws {
        let cluster = try PostgresCluster.shared()
        try await Self.withReplicas(cluster) { a, b, _, _ in
            let token = try #require(try await a.view("hub:todo").header("Hub-Session"))
            #expect(try await b.session(token).status == 200)
            #expect(try await a.delete("/view?session=\(token)").status == 204)
            #expect(await eventually { (try? await b.session(token).status) == 404 })
            #expect(try await b.session(token).json()["code"]?.stringValue == "session_not_found")
        }
    }

    @Test("PostgreSQL stopped mid-run: adds are 503 state_unavailable with Retry-After, views without state still serve, nothing acknowledged is lost, and writes succeed again once it is back")
    func databaseStoppedMidRun() async throws {
        let cluster = try PostgresCluster()
        try await Self.withReplicas(cluster) { a, _, _, _ in
            let token = try #require(try await a.view("hub:todo").header("Hub-Session"))
            var acknowledged: [String] = []
            for index in 0..<5 {
                let response = try await a.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"before \#(index)"}}"#)
                if response.status == 200 { acknowledged.append("before \(index)") }
            }
            #expect(acknowledged.count == 5)
            try cluster.stop()
            let refused = try await a.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"during"}}"#)
            #expect(refused.status == 503)
            #expect(try refused.json()["code"]?.stringValue == "state_unavailable")
            #expect(refused.header("Retry-After") == "1")
            #expect(try await a.view("hub:static").status == 200, "what needs no state keeps serving")
            let ready = try await a.get("/ready")
            #expect(ready.status == 200)
            #expect(try ready.json()["state"]?["available"]?.boolValue == false)
            #expect(try await a.metric(#"hub_state_operations_total{backend="postgres",op="read",result="unavailable"}"#) ?? 0 >= 1)

            try cluster.start()
            #expect(await eventually {
                (try? await a.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"after"}}"#).status) == 200
            })
            let view = try await a.session(token).json()
            let titles = view.bodyIDs.compactMap { view.component($0)?["text"]?["title"]?.stringValue }
            for title in acknowledged { #expect(titles.contains(title), "\(title) was acknowledged and must stay") }
            #expect(titles.contains("after") && !titles.contains("during"))
        }
    }
}
