import Foundation
import HubModel
import HubTestSupport
import Testing

/// `/metrics` counts what happened, with the labels docs/METRICS.md lists.
@Suite("Metrics")
struct MetricsTests {
    @Test("requests by route, actions by outcome, operation errors, upstream errors")
    func counters() async throws {
        try await withStandardHub { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            _ = try await client.action(#"{"session":"\#(session)","action":"test:ok"}"#)
            _ = try await client.action(#"{"session":"\#(session)","component":"row2"}"#)
            _ = try await client.action(#"{"session":"\#(session)","action":"remote:boom"}"#)
            _ = try await client.view("hub:fail")
            let lines = Set(try await client.get("/metrics").text.split(separator: "\n").map(String.init))
            for expected in [
                #"hub_http_requests_total{route="/view",method="GET",status="200"} 1"#,
                #"hub_http_requests_total{route="/view",method="GET",status="502"} 1"#,
                #"hub_http_requests_total{route="/action",method="POST",status="200"} 2"#,
                #"hub_http_requests_total{route="/action",method="POST",status="502"} 1"#,
                #"hub_actions_total{namespace="test",outcome="performed"} 1"#,
                #"hub_actions_total{namespace="selection",outcome="not_performed"} 1"#,
                #"hub_actions_total{namespace="remote",outcome="failed"} 1"#,
                #"hub_operation_errors_total{feature="fail",operation="remote"} 1"#,
                #"hub_upstream_errors_total{kind="http_5xx"} 2"#,
            ] {
                #expect(lines.contains(expected), "missing: \(expected)")
            }
        }
    }

    @Test("a memo hit is counted apart from chain runs")
    func chainMemoHits() async throws {
        try await withStandardHub { client, _, _ in
            for _ in 0..<3 { #expect(try await client.view("hub:static").status == 200) }
            let lines = Set(try await client.get("/metrics").text.split(separator: "\n").map(String.init))
            #expect(lines.contains(#"hub_chain_duration_seconds_count{feature="static"} 1"#))
            #expect(lines.contains(#"hub_chain_memo_hits_total{feature="static"} 2"#))
        }
    }

    @Test("the session and stream caps are gauges beside the live counts, at their configured values")
    func caps() async throws {
        let server = #"{ "host": "127.0.0.1", "port": 0, "sessions": { "max": 123 }, "limits": { "sseStreams": 7 }, "log": { "level": "error" } }"#
        try await withStandardHub(server: server) { client, _, _ in
            _ = try await client.view("hub:static")
            let lines = Set(try await client.get("/metrics").text.split(separator: "\n").map(String.init))
            for expected in [
                "hub_sessions_max 123", "hub_sse_streams_max 7", "# TYPE hub_sessions_max gauge", "# TYPE hub_sse_streams_max gauge",
                "hub_sessions_active 1", "hub_sse_streams 0",
            ] {
                #expect(lines.contains(expected), "missing: \(expected)")
            }
        }
    }
}
