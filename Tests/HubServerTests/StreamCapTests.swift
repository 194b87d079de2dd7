import HubModel
import HubTestSupport
import Testing

/// `limits.sseListenersPerSession` and `limits.sseStreams` over real sockets: a stream beyond a
/// cap is refused with 429/503, `Retry-After` and a problem; streams already open keep
/// receiving; other clients keep connecting.
@Suite("SSE stream caps")
struct StreamCapTests {
    static func server(perSession: Int, global: Int) -> String {
        """
        { "host": "127.0.0.1", "port": 0,
          "limits": { "sseListenersPerSession": \(perSession), "sseStreams": \(global) },
          "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }
        """
    }

    @Test("past sseListenersPerSession: 429 too_many_streams with Retry-After; open streams and other sessions are untouched")
    func perSessionCap() async throws {
        try await withStandardHub(server: Self.server(perSession: 2, global: 100), transport: .socket) { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let one = try await client.events(session: session)
            defer { one.close() }
            let two = try await client.events(session: session)
            defer { two.close() }
            #expect(one.status == 200 && two.status == 200)
            #expect(try await one.next().event == "view")
            #expect(try await two.next().event == "view")

            let third = try await client.get("/view/events?session=\(session)")
            let problem = try expectProblem(third, 429, "too_many_streams")
            #expect(third.header("Retry-After") == "10", "\(third)")
            #expect(problem["detail"]?.stringValue?.contains("2") == true)

            // The two open streams still get the next view.
            _ = try await client.action(#"{"session":"\#(session)","action":"test:bump"}"#)
            for stream in [one, two] {
                let event = try await stream.next()
                #expect(try JSONParser().parse(event.data)["custom"]?["runs"]?.intValue == 2)
            }

            // Another session is not limited by this one's streams.
            let other = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let otherStream = try await client.events(session: other)
            defer { otherStream.close() }
            #expect(otherStream.status == 200)
            #expect(try await otherStream.next().event == "view")

            // A listener that leaves gives its slot back.
            one.close()
            let reopened = try await eventually(within: 10) {
                let retry = try await client.events(session: session)
                defer { retry.close() }
                return retry.status == 200
            }
            #expect(reopened)

            let metrics = String(decoding: try await client.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"hub_sse_streams_refused_total{cap="per_session"} "#))
            #expect(!metrics.contains(#"hub_sse_streams_refused_total{cap="per_session"} 0"#), "\(metrics)")
            #expect(metrics.contains(#"hub_sse_streams_refused_total{cap="global"} 0"#), "\(metrics)")
        }
    }

    @Test("past sseStreams: 503 stream_limit with Retry-After; other requests are still served")
    func globalCap() async throws {
        try await withStandardHub(server: Self.server(perSession: 8, global: 2), transport: .socket) { client, _, _ in
            let first = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let second = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let one = try await client.events(session: first)
            defer { one.close() }
            let two = try await client.events(session: second)
            defer { two.close() }
            let before = try JSONParser().parse(try await one.next().data)["custom"]?["runs"]?.intValue ?? 0
            #expect(try await two.next().event == "view")

            let third = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let refused = try await client.get("/view/events?session=\(third)")
            try expectProblem(refused, 503, "stream_limit")
            #expect(refused.header("Retry-After") == "30", "\(refused)")
            let again = try await client.get("/view/events?session=\(first)")
            try expectProblem(again, 503, "stream_limit")

            // Other clients keep connecting, and the open streams keep streaming.
            #expect(try await client.get("/health").status == 200)
            #expect(try await client.view("hub:static").status == 200)
            _ = try await client.action(#"{"session":"\#(first)","action":"test:bump"}"#)
            let after = try JSONParser().parse(try await one.next().data)["custom"]?["runs"]?.intValue ?? 0
            #expect(after > before, "the open stream got the view after the action")

            let metrics = String(decoding: try await client.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"hub_sse_streams_refused_total{cap="global"} 2"#), "\(metrics)")

            // When a stream ends, the next one fits.
            two.close()
            let reopened = try await eventually(within: 10) {
                let retry = try await client.events(session: third)
                defer { retry.close() }
                return retry.status == 200
            }
            #expect(reopened)
        }
    }

    @Test("HEAD /view/events answers the stream's headers and holds no slot")
    func headHoldsNoSlot() async throws {
        try await withStandardHub(server: Self.server(perSession: 1, global: 100), transport: .socket) { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            for _ in 0..<3 {
                let head = try await client.send("HEAD", "/view/events?session=\(session)")
                #expect(head.status == 200)
                #expect(head.header("Content-Type") == "text/event-stream")
            }
            let stream = try await client.events(session: session)
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(try await stream.next().event == "view")
        }
    }
}
