import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Many users behind one deployment, over real sockets: which client a request is (the forms
/// of `X-Forwarded-For` a balancer writes, IPv6 prefixes), what a misconfigured balancer shows,
/// the used sessions one client may hold, and the budgets of `HEAD`, explain and actions,
/// each with the way around it tried.
@Suite("Telling clients apart")
struct ClientSeparationTests {
    static func config(upstream: String, limits: String, trusted: String = "[]", extra: String = "") -> TestConfig {
        ClientLimitTests.config(
            upstream: upstream,
            server: """
                { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
                  "limits": \(limits), "trustedProxies": \(trusted) \(extra) }
                """)
    }

    @Test("ip:port and [v6]:port are their address; an IPv6 /64 is one client; all-trusted chains take the leftmost entry")
    func forwardedForms() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let config = Self.config(
            upstream: upstream.base, limits: #"{ "sessionsPerClient": { "perSecond": 0.001, "burst": 1 } }"#,
            trusted: #"["127.0.0.0/8", "10.0.0.0/8"]"#)
        try await withHub(config, transport: .socket) { client, _ async throws in
            #expect(try await ClientLimitTests.open(client, "203.0.113.1:4711") == 200)
            #expect(try await ClientLimitTests.open(client, "203.0.113.1") == 429, "the port does not make another client")
            #expect(try await ClientLimitTests.open(client, "203.0.113.1:80") == 429)
            #expect(try await ClientLimitTests.open(client, "[2001:db8:1:2::1]:443") == 200)
            #expect(try await ClientLimitTests.open(client, "2001:db8:1:2:ffff::99") == 429, "the same /64")
            #expect(try await ClientLimitTests.open(client, "[2001:db8:1:2::7]") == 429)
            #expect(try await ClientLimitTests.open(client, "2001:db8:1:3::1") == 200, "another /64")
            // Every entry trusted: the leftmost is the client (nginx's real_ip_recursive).
            #expect(try await ClientLimitTests.open(client, "10.1.1.1, 127.0.0.5") == 200)
            #expect(try await ClientLimitTests.open(client, "10.1.1.1") == 429)
            // The way around: garbage is the proxy's own bucket, not a fresh one per request.
            #expect(try await ClientLimitTests.open(client, "203.0.113.9:abc") == 200, "the proxy (127.0.0.1) itself")
            #expect(try await ClientLimitTests.open(client, "[2001:db8::1]x") == 429, "the proxy's bucket again")
            #expect(try await ClientLimitTests.open(client, nil) == 429)
        }
    }

    @Test("a configured IPv6 prefix groups clients by it (a /48 here)")
    func ipv6PrefixSetting() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let config = Self.config(
            upstream: upstream.base,
            limits: #"{ "sessionsPerClient": { "perSecond": 0.001, "burst": 1 }, "clientIPv6Prefix": 48 }"#,
            trusted: #"["127.0.0.1"]"#)
        try await withHub(config, transport: .socket) { client, _ async throws in
            #expect(try await ClientLimitTests.open(client, "2001:db8:1:2::1") == 200)
            #expect(try await ClientLimitTests.open(client, "2001:db8:1:ffff::1") == 429, "the same /48")
            #expect(try await ClientLimitTests.open(client, "2001:db8:2::1") == 200)
        }
    }

    @Test("X-Forwarded-For from a peer outside trustedProxies is ignored and counted; from a trusted one it is not counted")
    func forwardedForIgnored() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let metric = "hub_forwarded_for_ignored_total"
        let config = Self.config(
            upstream: upstream.base, limits: #"{ "sessionsPerClient": { "perSecond": 0.001, "burst": 1 } }"#,
            trusted: #"["127.0.0.2"]"#)
        try await withHub(config, transport: .socket) { client, _ async throws in
            #expect(try await client.metric(metric) == 0)
            #expect(try await client.get("/health").status == 200)
            #expect(try await client.metric(metric) == 0, "no header, nothing counted")
            // 127.0.0.1 is not trusted: its header chooses nothing, and every such request counts.
            #expect(try await ClientLimitTests.open(client, "203.0.113.1") == 200)
            #expect(try await ClientLimitTests.open(client, "203.0.113.2") == 429, "the peer's bucket, whatever it writes")
            #expect(try await client.get("/health", headers: [("X-Forwarded-For", "203.0.113.3")]).status == 200)
            #expect(try await client.metric(metric) == 3)
            // The trusted proxy's header names the client and is not counted.
            let proxy = client.from("127.0.0.2")
            #expect(try await ClientLimitTests.open(proxy, "203.0.113.1") == 200)
            #expect(try await client.metric(metric) == 3)
        }
    }

    @Test("a client holds at most protectedSessionsPerClient used sessions: another client keeps its sessions through its flood")
    func protectedSessionsPerClient() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let config = Self.config(
            upstream: upstream.base, limits: #"{ "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } }"#,
            extra: #", "sessions": { "max": 40 }"#)
        try await withHub(config, transport: .socket) { client, _ async throws in
            let flooder = client.from("127.0.0.2")
            let victim = client.from("127.0.0.3")
            /// Opens `hub:remote` and uses the session once (which protects it, within the cap).
            func openAndUse(_ who: HubClient) async throws -> String {
                let token = try #require(try await who.view("hub:remote").header("Hub-Session"))
                #expect(try await who.session(token).status == 200)
                return token
            }
            for _ in 0..<40 { _ = try await openAndUse(flooder) }
            // The default cap: 1% of sessions.max, at least 16.
            #expect(try await client.metric("hub_sessions_protected") == 16)
            #expect(try await client.metric("hub_sessions_active") == 40)
            let kept = try await openAndUse(victim)
            #expect(try await client.metric("hub_sessions_protected") == 17)
            for _ in 0..<80 { _ = try await openAndUse(flooder) }
            #expect(try await client.metric("hub_sessions_protected") == 17, "the flooder's share is still 16")
            let rebuiltBefore = try await client.metric(#"hub_sessions_rebuilt_total{reason="evicted"}"#)
            #expect(try await victim.session(kept).status == 200)
            #expect(
                try await client.metric(#"hub_sessions_rebuilt_total{reason="evicted"}"#) == rebuiltBefore,
                "the victim's session was held, not rebuilt")
            // The way around: a second address of the flooder is a second client, with its own share only.
            let second = client.from("127.0.0.4")
            for _ in 0..<30 { _ = try await openAndUse(second) }
            #expect(try await client.metric("hub_sessions_protected") == 33)
            #expect(try await victim.session(kept).status == 200)
            #expect(try await client.metric(#"hub_sessions_rebuilt_total{reason="evicted"}"#) == rebuiltBefore)
        }
    }

    @Test("a client's new session evicts its own unused sessions first, not another client's")
    func ownFloodEvictsOwnFirst() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let config = Self.config(
            upstream: upstream.base, limits: #"{ "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } }"#,
            extra: #", "sessions": { "max": 20 }"#)
        try await withHub(config, transport: .socket) { client, _ async throws in
            let flooder = client.from("127.0.0.2")
            let victim = client.from("127.0.0.3")
            for _ in 0..<10 { _ = try await flooder.view("hub:remote") }
            // Opened, not used yet: in probation, older than most of the flood to come.
            let waiting = try #require(try await victim.view("hub:remote").header("Hub-Session"))
            for _ in 0..<60 { _ = try await flooder.view("hub:remote") }
            let before = try await client.metric(#"hub_sessions_rebuilt_total{reason="evicted"}"#)
            #expect(try await victim.session(waiting).status == 200)
            #expect(try await client.metric(#"hub_sessions_rebuilt_total{reason="evicted"}"#) == before, "held, not rebuilt")
        }
    }

    @Test("HEAD and explain runs take a session token unless the memo answers; GET of the memo never does")
    func headAndExplainMetered() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let config = Self.config(
            upstream: upstream.base, limits: #"{ "sessionsPerClient": { "perSecond": 0.001, "burst": 3 } }"#,
            extra: #", "debug": { "explain": true }"#)
        try await withHub(config, transport: .socket) { client, _ async throws in
            #expect(try await client.send("HEAD", "/view?uri=hub:remote").status == 200)  // 1
            #expect(try await client.send("HEAD", "/view?uri=hub:remote").status == 200)  // 2
            #expect(try await client.get("/view?uri=hub:remote&explain=1").status == 200)  // 3
            let refused = try await client.send("HEAD", "/view?uri=hub:remote")
            #expect(refused.status == 429)
            #expect(refused.header("Retry-After") == "1000")
            try expectProblem(try await client.get("/view?uri=hub:remote&explain=1"), 429, "too_many_sessions")
            // The upstream saw the three runs the budget allowed, and no more.
            #expect(upstream.log.count(path: "/item") == 3)
            // The memo answers hub:static once it ran: that stores nothing and costs nothing...
            #expect(try await client.send("HEAD", "/view?uri=hub:static").status == 429, "its first run is a run")
            let other = client.from("127.0.0.2")
            #expect(try await other.view("hub:static").status == 200)  // fills the memo (another client's budget)
            for _ in 0..<5 { #expect(try await client.send("HEAD", "/view?uri=hub:static").status == 200) }
            #expect(try await client.view("hub:static").status == 200)
            // ...and another client has its own budget.
            #expect(try await other.send("HEAD", "/view?uri=hub:remote").status == 200)
            #expect(try await client.metric(#"hub_client_limited_total{limit="sessions_per_client"}"#) == 3)
        }
    }

    @Test("every POST /action takes a token of actionsPerClient, a malformed one too: past it 429 too_many_actions")
    func actionsPerClient() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let config = Self.config(
            upstream: upstream.base,
            limits: #"{ "actionsPerClient": { "perSecond": 0.001, "burst": 3 }, "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } }"#)
        try await withHub(config, transport: .socket) { client, _ async throws in
            let token = try #require(try await client.view("hub:remote").header("Hub-Session"))
            try expectProblem(try await client.action(#"{"session":"\#(token)","action":"x:y"}"#), 404, "action_not_found")
            // Cheap requests cost the same: a malformed body and an unknown session.
            #expect(try await client.action(#"{"nope":1}"#).status == 422)
            #expect(try await client.action(#"{"session":"garbage","action":"x:y"}"#).status == 404)
            let refused = try await client.action(#"{"session":"\#(token)","action":"x:y"}"#)
            try expectProblem(refused, 429, "too_many_actions")
            #expect(refused.header("Retry-After") == "1000")
            try expectProblem(try await client.action(#"{"nope":1}"#), 429, "too_many_actions")
            // Reads are not actions; another client has its own bucket.
            #expect(try await client.session(token).status == 200)
            try expectProblem(
                try await client.from("127.0.0.2").action(#"{"session":"\#(token)","action":"x:y"}"#), 404, "action_not_found")
            #expect(try await client.metric(#"hub_client_limited_total{limit="actions_per_client"}"#) == 2)
        }
    }

    @Test("limits.actionsPerClient, protectedSessionsPerClient and clientIPv6Prefix: defaults and ranges")
    func settings() throws {
        let defaults = ServerSettings()
        #expect(defaults.limits.actionsPerClient == RateLimit(perSecond: 20, burst: 60))
        #expect(defaults.limits.clientIPv6Prefix == 64)
        #expect(defaults.protectedSessionsPerClient == 1000, "1% of the default sessions.max (100,000)")
        var small = ServerSettings()
        small.sessions.max = 500
        #expect(small.protectedSessionsPerClient == 16, "at least 16")
        small.limits.protectedSessionsPerClient = 3
        #expect(small.protectedSessionsPerClient == 3)
    }
}
