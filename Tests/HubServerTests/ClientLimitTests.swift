import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Per-client limits over real sockets: sessions one client may store (`limits.sessionsPerClient`)
/// and event streams it may hold (`limits.sseStreamsPerClient`), each a 429 with `Retry-After`;
/// the client is the peer, or what a trusted proxy names in `X-Forwarded-For`, nothing else.
@Suite("Per-client limits")
struct ClientLimitTests {
    static func server(limits: String, trusted: String = "[]") -> String {
        """
        { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
          "limits": \(limits), "trustedProxies": \(trusted) }
        """
    }

    static func config(upstream: String, server: String) -> TestConfig {
        TrustedSessionTests.config(upstream: upstream, server: server)
    }

    @Test("new sessions past the client's bucket are 429 with Retry-After; memo hits, held sessions and /health are not limited")
    func sessionsPerClient() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let server = Self.server(limits: #"{ "sessionsPerClient": { "perSecond": 0.001, "burst": 3 } }"#)
        try await withHub(Self.config(upstream: upstream.base, server: server), transport: .socket) { client, _ in
            #expect(try await client.view("hub:static").status == 200)  // a memo miss: stored (1)
            let first = try #require(try await client.view("hub:remote").header("Hub-Session"))  // (2)
            #expect(try await client.view("hub:remote").status == 200)  // (3)
            let refused = try await client.view("hub:remote")
            try expectProblem(refused, 429, "too_many_sessions")
            #expect(refused.header("Retry-After") == "1000", "one token every 1000 s")
            // What stores nothing is not limited.
            #expect(try await client.view("hub:static").status == 200, "a memo hit stores nothing")
            #expect(try await client.session(first).status == 200, "a held session")
            #expect(try await client.get("/health").status == 200)
            #expect(try await client.get("/ready").status == 200)
            #expect(try await client.get("/metrics").status == 200)
            // The ways around it: a lazy token's first use, another endpoint, a spoofed address.
            let lazy = try #require(try await client.view("hub:static").header("Hub-Session"))
            try expectProblem(try await client.session(lazy), 429, "too_many_sessions")
            try expectProblem(try await client.action(#"{"uri":"hub:remote","action":"x:y"}"#), 429, "too_many_sessions")
            let spoofed = try await client.view("hub:remote", headers: [("X-Forwarded-For", "203.0.113.7")])
            try expectProblem(spoofed, 429, "too_many_sessions")
            #expect(try await client.metric(#"hub_client_limited_total{limit="sessions_per_client"}"#) == 4)
            #expect(try await client.metric("hub_sessions_created_total") == 3)
        }
    }

    /// The status of opening `hub:remote` with `X-Forwarded-For: forwarded` (none when `nil`).
    static func open(_ client: HubClient, _ forwarded: String?) async throws -> Int {
        try await client.view("hub:remote", headers: forwarded.map { [("X-Forwarded-For", $0)] } ?? []).status
    }

    @Test("behind a trusted proxy each X-Forwarded-For client has its own bucket; the rightmost untrusted entry counts")
    func trustedProxyNamesTheClient() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let server = Self.server(limits: #"{ "sessionsPerClient": { "perSecond": 0.001, "burst": 1 } }"#, trusted: #"["127.0.0.0/8"]"#)
        try await withHub(Self.config(upstream: upstream.base, server: server), transport: .socket) { client, _ async throws in
            #expect(try await Self.open(client, "203.0.113.1") == 200)
            #expect(try await Self.open(client, "203.0.113.1") == 429)
            #expect(try await Self.open(client, "203.0.113.2") == 200, "another client behind the proxy")
            // A client cannot pick its bucket by writing X-Forwarded-For itself: the proxy appends
            // the address it saw, and that rightmost one is the client.
            #expect(try await Self.open(client, "198.51.100.9, 203.0.113.1") == 429)
            #expect(try await Self.open(client, "203.0.113.3, 127.0.0.1") == 200, "trusted hops are skipped")
            #expect(try await Self.open(client, "203.0.113.3") == 429)
            #expect(try await Self.open(client, nil) == 200, "the proxy itself is a client too")
        }
    }

    @Test("event streams past the client's cap are 429 too_many_streams; another client still opens; closing frees a slot")
    func streamsPerClient() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let server = Self.server(
            limits: #"{ "sseStreamsPerClient": 2, "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } }"#,
            trusted: #"["127.0.0.1"]"#)
        try await withHub(Self.config(upstream: upstream.base, server: server), transport: .socket) { client, _ in
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try #require(try await client.view("hub:remote").header("Hub-Session"))) }
            let first = try await client.events(session: tokens[0])
            let second = try await client.events(session: tokens[1])
            defer { second.close() }
            #expect(first.status == 200 && second.status == 200)
            let third = try await client.events(session: tokens[2])
            #expect(third.status == 429)
            #expect(third.header("Retry-After") == "10")
            third.close()
            // Another client (named by the trusted proxy) is not affected; /health neither.
            let other = try await client.events(
                target: "/view/events?session=\(client.encode(tokens[2]))", headers: [("X-Forwarded-For", "203.0.113.5")])
            #expect(other.status == 200)
            other.close()
            #expect(try await client.get("/health").status == 200)
            #expect(try await client.metric(#"hub_sse_streams_refused_total{cap="per_client"}"#) == 1)
            #expect(try await client.metric(#"hub_client_limited_total{limit="streams_per_client"}"#) == 1)
            first.close()
            #expect(try await eventually {
                let retry = try await client.events(session: tokens[2])
                defer { retry.close() }
                return retry.status == 200
            })
        }
    }
}
