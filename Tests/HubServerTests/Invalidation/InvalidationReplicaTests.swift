import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Two replicas on one PostgreSQL (a throwaway cluster on loopback): an invalidation accepted
/// by one reaches the other through the state store's change feed, which drops its cached
/// upstream response and memo entry and pushes the new view to its listeners.
@Suite("Invalidation across replicas (PostgreSQL)", .serialized)
struct InvalidationReplicaTests {
    @Test("a signed invalidation by tag sent to replica A pushes the new view to every listener on replica B, and B's caches fetch again")
    func reachesTheOtherReplica() async throws {
        let cluster = try PostgresCluster.shared()
        let source = try Invalidation.Source()
        let config = Invalidation.config(source)
        try await withHub(config, environment: SharedStateTests.environment(cluster), transport: .socket) { a, _ in
            try await withHub(config, environment: SharedStateTests.environment(cluster), transport: .socket) { b, _ in
                #expect(await eventually { (try? await b.get("/ready").json()["state"]?["changeFeed"]?.boolValue) == true })
                var streams: [SSEStream] = []
                defer { for stream in streams { stream.close() } }
                for _ in 0..<3 {
                    let token = try #require(try await b.view("hub:news:7").header("Hub-Session"))
                    let stream = try await b.events(session: token)
                    #expect(try Invalidation.title(try await stream.next().data) == "News 7 v1")
                    streams.append(stream)
                }
                #expect(try Invalidation.title(try await a.view("hub:news:7")) == "News 7 v1")
                source.publish(2)
                #expect(try Invalidation.title(try await b.view("hub:news:7")) == "News 7 v1", "B's cache answers")

                let answer = try await Invalidation.post(a, #"{"tags":["article-7"]}"#)
                #expect(answer.status == 202, "\(answer)")
                for stream in streams {
                    var title: String?
                    while title != "News 7 v2" { title = try Invalidation.title(try await stream.next().data) }
                    #expect(title == "News 7 v2")
                }
                #expect(try Invalidation.title(try await b.view("hub:news:7")) == "News 7 v2")
                #expect(try Invalidation.title(try await a.view("hub:news:7")) == "News 7 v2")
                #expect(await eventually { (try? await b.metric("hub_invalidated_sessions_total")) == 3 })
                #expect(try await b.metric(#"hub_invalidations_total{result="accepted"}"#) == 0, "B accepted no request")
            }
        }
    }
}
