import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// A held session under the default `reload: always` whose chain the memo would answer with the
/// view it shows is answered from that view (as under `never`) and counted as a memo hit; a
/// remote response going stale ends that: the next load re-runs and fetches.
@Suite("Held views answered by the memo")
struct HeldMemoizedViewTests {
    @Test("remote content: held loads answer while the upstream response is fresh, then fetch once it is stale")
    func remoteFreshness() async throws {
        let served = Locked(0)
        let upstream = try TestUpstream { _ in
            let number = served.withLock { $0 += 1; return $0 }
            return .respond(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=10")],
                body: StaleContentTests.view("v\(number)"))
        }
        defer { upstream.stop() }
        let clock = ManualClock()
        let config = StaleContentTests.config(
            #"{ "kind": "remote", "url": "\#(upstream.url("/news"))" }, { "kind": "patch", "set": { "row": { "custom": { "patched": true } } } }"#)
        try await withHub(config, upstreamClock: clock.upstreamClock) { client, _ async throws in
            let opened = try await client.view("hub:news")
            let token = try #require(opened.header("Hub-Session"))
            // The first run's key was made before any response was fresh: the session's first
            // load runs the chain again (the upstream cache answers it) and memoizes it.
            #expect(try await client.session(token).json()["title"]?.stringValue == "v1")
            let hitsBefore = try await client.metric(#"hub_chain_memo_hits_total{feature="news"}"#) ?? 0
            for _ in 0..<4 {
                let held = try await client.session(token)
                #expect(held.status == 200)
                #expect(try held.json()["title"]?.stringValue == "v1")
                #expect(held.header("Server-Timing")?.contains("(memo)") == true, "\(held.header("Server-Timing") ?? "")")
            }
            #expect(upstream.requestCount == 1)
            #expect(try await client.metric(#"hub_chain_memo_hits_total{feature="news"}"#) ?? 0 == hitsBefore + 4)

            clock.advance(.seconds(11))
            let refreshed = try await client.session(token)
            #expect(try refreshed.json()["title"]?.stringValue == "v2", "stale: the load re-ran the chain")
            #expect(upstream.requestCount == 2)
            #expect(try await client.session(token).json()["title"]?.stringValue == "v2")
            #expect(upstream.requestCount == 2, "fresh again: answered from the held view")
        }
    }
}
