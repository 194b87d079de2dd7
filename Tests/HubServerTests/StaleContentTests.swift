import Foundation
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// Remote operations serve their last good content when the upstream fails (`staleIfErrorSeconds`,
/// `stale-if-error`) or while one background refresh runs (`staleWhileRevalidateSeconds`,
/// `stale-while-revalidate`): RFC 5861. Every window is measured with a stepped clock.
@Suite("Stale content")
struct StaleContentTests {
    static func config(_ operation: String, server: String = TestConfig.defaultServer) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("news", """
            { "id": "news", "title": "News", "match": { "uri": "hub:news" }, "operations": [ \(operation) ] }
            """)
        return config
    }

    /// Many views, one client: sessions stored per view are not the subject here.
    static let manySessions = """
        { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
          "limits": { "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } } }
        """

    /// An upstream that answers the view "old" first, then holds every later request at `gate`
    /// and answers "new": a refresh the test releases when it has seen what it wanted meanwhile.
    static func refreshingUpstream(headers: [(String, String)], gate: ThreadGate) throws -> TestUpstream {
        let served = Locked(0)
        return try TestUpstream { _ in
            let number = served.withLock { $0 += 1; return $0 }
            if number > 1 { gate.wait() }
            return .respond(status: 200, headers: headers, body: Self.view(number == 1 ? "old" : "new"))
        }
    }

    static func view(_ title: String) -> [UInt8] {
        Array(#"{ "title": "\#(title)", "body": [ { "id": "row", "text": { "title": "\#(title)" } } ] }"#.utf8)
    }

    @Test("staleIfErrorSeconds: 503, an unreadable body, a refused connection and a timeout each get the first content, Hub-Stale and a count; past the window the view fails")
    func staleIfErrorThroughEveryFailure() async throws {
        let refusing = try RefusingPort(shared: true)
        let phase = Locked("good")
        let answering = try TestUpstream(sharing: refusing) { _ in
            switch phase.withLock({ $0 }) {
            case "good": return .respond(status: 200, headers: [("Content-Type", "application/json")], body: Self.view("first"))
            case "unreadable": return .respond(status: 200, headers: [("Content-Type", "application/json")], body: Array("<html>".utf8))
            default: return .respond(status: 503, body: Array("down".utf8))
            }
        }
        defer { answering.stop() }
        let clock = ManualClock()
        // The timeout phase is about the upstream limit: 2 s, far above a loopback answer.
        let config = Self.config(
            #"{ "kind": "remote", "url": "\#(refusing.url("/news"))", "staleIfErrorSeconds": 60, "timeoutMs": 2000 }"#,
            server: Self.manySessions)
        try await withHub(config, upstreamClock: clock.upstreamClock) { client, _ async throws in
            let fresh = try await client.view("hub:news")
            #expect(fresh.status == 200)
            #expect(try fresh.json()["title"]?.stringValue == "first")
            #expect(fresh.header("Hub-Stale") == nil)
            #expect(try await client.metric(#"hub_upstream_stale_served_total{feature="news"}"#) ?? 0 == 0)

            var served = 0
            func expectStale(_ age: Int, _ what: String) async throws {
                let response = try await client.view("hub:news")
                #expect(response.status == 200, "\(what): \(response)")
                #expect(try response.json()["title"]?.stringValue == "first", "\(what)")
                #expect(response.header("Hub-Stale") == "remote;age=\(age)", "\(what)")
                served += 1
                #expect(try await client.metric(#"hub_upstream_stale_served_total{feature="news"}"#) == Double(served), "\(what)")
            }

            phase.withLock { $0 = "503" }
            clock.advance(.seconds(5))
            try await expectStale(5, "503")

            phase.withLock { $0 = "unreadable" }
            try await expectStale(5, "unreadable body")

            answering.stop()
            clock.advance(.seconds(10))
            try await expectStale(15, "connection refused")

            let gate = ThreadGate()
            let held = try TestUpstream(sharing: refusing) { _ in
                gate.wait()
                return .respond(status: 200, body: Self.view("late"))
            }
            defer { gate.open(); held.stop() }
            clock.advance(.seconds(30))
            try await expectStale(45, "timeout")
            gate.open()
            held.stop()

            // Past the window (60 s after the content was last good) the failure is the view's, as before.
            clock.advance(.seconds(16))
            let failed = try await client.view("hub:news")
            try expectProblem(failed, 502)
            #expect(failed.header("Hub-Stale") == nil)
            #expect(try await client.metric(#"hub_upstream_stale_served_total{feature="news"}"#) == Double(served))
        }
    }

    @Test("staleWhileRevalidateSeconds: 50 concurrent views after freshness ends get the old content at once; the upstream sees exactly one refresh, then views follow it")
    func staleWhileRevalidateCoalescesOneRefresh() async throws {
        let gate = ThreadGate()
        let upstream = try Self.refreshingUpstream(
            headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=10")], gate: gate)
        defer { gate.open(); upstream.stop() }
        let clock = ManualClock()
        let config = Self.config(
            #"{ "kind": "remote", "url": "\#(upstream.url("/news"))", "staleWhileRevalidateSeconds": 60 }"#,
            server: Self.manySessions)
        try await withHub(config, upstreamClock: clock.upstreamClock) { client, _ async throws in
            #expect(try await client.view("hub:news").json()["title"]?.stringValue == "old")
            clock.advance(.seconds(11))
            // The refresh is held at the gate until every view has answered: none waited for it.
            let responses = try await withThrowingTaskGroup(of: LoopbackResponse.self) { group in
                for _ in 0..<50 { group.addTask { try await client.view("hub:news") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.count == 50)
            for response in responses {
                #expect(response.status == 200)
                #expect(try response.json()["title"]?.stringValue == "old")
                #expect(response.header("Hub-Stale") == "remote;age=11")
            }
            #expect(try await client.metric(#"hub_upstream_stale_served_total{feature="news"}"#) == 50)
            #expect(await eventually { upstream.requestCount == 2 }, "the one refresh reached the upstream")
            gate.open()
            #expect(
                try await eventually {
                    let response = try await client.view("hub:news")
                    return try response.json()["title"]?.stringValue == "new" && response.header("Hub-Stale") == nil
                }, "views follow the refresh")
            #expect(upstream.requestCount == 2, "exactly one refresh for 50 stale views (and the views after it)")
        }
    }

    @Test("staleWhileRevalidateSeconds with an upstream that gives no lifetime: the sessions answered stale follow the one refresh without asking again")
    func revalidateWithoutLifetime() async throws {
        let gate = ThreadGate()
        let upstream = try Self.refreshingUpstream(headers: [], gate: gate)
        defer { gate.open(); upstream.stop() }
        let clock = ManualClock()
        let config = Self.config(
            #"{ "kind": "remote", "url": "\#(upstream.url("/news"))", "staleWhileRevalidateSeconds": 60 }"#,
            server: Self.manySessions)
        try await withHub(config, upstreamClock: clock.upstreamClock) { client, _ async throws in
            #expect(try await client.view("hub:news").json()["title"]?.stringValue == "old")
            clock.advance(.seconds(1))
            var sessions: [String] = []
            for _ in 0..<10 {
                let response = try await client.view("hub:news")
                #expect(response.header("Hub-Stale") == "remote;age=1")
                sessions.append(try #require(response.header("Hub-Session")))
            }
            gate.open()
            for session in sessions {
                #expect(try await eventually { try await client.session(session).json()["title"]?.stringValue == "new" })
            }
            let after = try await client.view("hub:news")
            #expect(try after.json()["title"]?.stringValue == "new")
            #expect(after.header("Hub-Stale") == nil)
            #expect(upstream.requestCount == 2, "one refresh; the reloading sessions took its content")
        }
    }

    @Test("an SSE listener of a view built from stale content gets the fresh view when the upstream recovers")
    func listenerFollowsRecovery() async throws {
        let phase = Locked("good")
        let upstream = try TestUpstream { _ in
            switch phase.withLock({ $0 }) {
            case "good": return .respond(status: 200, body: Self.view("before"))
            case "recovered": return .respond(status: 200, body: Self.view("after"))
            default: return .respond(status: 503)
            }
        }
        defer { upstream.stop() }
        let clock = ManualClock()
        let config = Self.config(
            #"{ "kind": "remote", "url": "\#(upstream.url("/news"))", "staleIfErrorSeconds": 60 }"#, server: Self.manySessions)
        try await withHub(config, transport: .socket, upstreamClock: clock.upstreamClock) { client, _ async throws in
            #expect(try await client.view("hub:news").json()["title"]?.stringValue == "before")
            phase.withLock { $0 = "down" }
            clock.advance(.seconds(2))
            let stale = try await client.view("hub:news")
            #expect(stale.header("Hub-Stale") == "remote;age=2")
            let session = try #require(stale.header("Hub-Session"))
            let stream = try await client.events(session: session)
            defer { stream.close() }
            #expect(try await stream.next().data.contains("before"))
            phase.withLock { $0 = "recovered" }
            // A background retry finds the upstream back and the session reloads: no request needed.
            var event = try await stream.next()
            while event.event != "view" { event = try await stream.next() }
            #expect(event.data.contains("after"))
            let followed = try await client.session(session)
            #expect(try followed.json()["title"]?.stringValue == "after")
            #expect(followed.header("Hub-Stale") == nil)
        }
    }

    @Test("the upstream's Cache-Control stale-if-error is honoured; the config's value wins, and 0 turns it off")
    func upstreamDirectiveAndConfigPrecedence() async throws {
        let failing = Locked(false)
        let upstream = try TestUpstream { request in
            if failing.withLock({ $0 }) { return .respond(status: 500) }
            return .respond(status: 200, headers: [("Cache-Control", "stale-if-error=30")], body: Self.view(request.path))
        }
        defer { upstream.stop() }
        let clock = ManualClock()
        var config = TestConfig(server: Self.manySessions)
        for (name, extra) in [("upstream", ""), ("longer", #", "staleIfErrorSeconds": 120"#), ("off", #", "staleIfErrorSeconds": 0"#)] {
            config.feature(name, """
                { "id": "\(name)", "title": "T", "match": { "uri": "hub:\(name)" },
                  "operations": [ { "kind": "remote", "url": "\(upstream.url("/" + name))"\(extra) } ] }
                """)
        }
        try await withHub(config, upstreamClock: clock.upstreamClock) { client, _ async throws in
            for name in ["upstream", "longer", "off"] { #expect(try await client.view("hub:\(name)").status == 200) }
            failing.withLock { $0 = true }
            clock.advance(.seconds(20))
            #expect(try await client.view("hub:upstream").header("Hub-Stale") == "remote;age=20")
            #expect(try await client.view("hub:longer").header("Hub-Stale") == "remote;age=20")
            try expectProblem(try await client.view("hub:off"), 502)
            clock.advance(.seconds(20))
            try expectProblem(try await client.view("hub:upstream"), 502)
            #expect(try await client.view("hub:longer").header("Hub-Stale") == "remote;age=40")
        }
    }

    @Test("Hub-Stale is a structured-field list with one entry per stale operation")
    func oneEntryPerStaleOperation() async throws {
        let failing = Locked(false)
        let upstream = try TestUpstream { request in
            if failing.withLock({ $0 }) { return .respond(status: 502) }
            return .respond(status: 200, body: Array(#"[ { "id": "\#(request.path.dropFirst())" } ]"#.utf8))
        }
        defer { upstream.stop() }
        let clock = ManualClock()
        let config = Self.config(
            """
            { "kind": "remote", "url": "\(upstream.url("/a"))", "staleIfErrorSeconds": 60 },
            { "kind": "static", "json": [ { "id": "between" } ] },
            { "kind": "remote", "url": "\(upstream.url("/b"))", "staleIfErrorSeconds": 60 }
            """, server: Self.manySessions)
        try await withHub(config, upstreamClock: clock.upstreamClock) { client, _ async throws in
            #expect(try await client.view("hub:news").json().bodyIDs == ["a", "between", "b"])
            failing.withLock { $0 = true }
            clock.advance(.seconds(3))
            let stale = try await client.view("hub:news")
            #expect(try stale.json().bodyIDs == ["a", "between", "b"])
            #expect(stale.header("Hub-Stale") == "remote;age=3, remote;age=3")
            #expect(try await client.metric(#"hub_upstream_stale_served_total{feature="news"}"#) == 2)
        }
    }

    @Test("validate: stale windows are for GET only, and warn when an upstream timeout cannot come before the chain's")
    func validation() throws {
        var config = TestConfig(server: #"{ "timeouts": { "operationSeconds": 2 }, "upstream": { "timeoutMs": 2000 } }"#)
        let operations = [
            #"{ "kind": "remote", "url": "http://127.0.0.1:9/a", "method": "POST", "staleWhileRevalidateSeconds": 5 }"#,
            #"{ "kind": "remote", "url": "http://127.0.0.1:9/b", "staleIfErrorSeconds": 60 }"#,
            #"{ "kind": "remote", "url": "http://127.0.0.1:9/c", "staleIfErrorSeconds": 60, "timeoutMs": 1500 }"#,
        ]
        for (index, operation) in operations.enumerated() {
            config.feature("s\(index)", #"{ "id": "s\#(index)", "title": "S", "match": { "uri": "hub:s\#(index)" }, "operations": [ \#(operation) ] }"#)
        }
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ConfigLoader(environment: [:]).load(directory: directory)
        }
        let issues = try #require(error).issues
        #expect(issues.contains { $0.severity == .error && $0.file == "features/s0.json" && $0.path == "$.operations[0]" }, "\(issues)")
        #expect(issues.contains {
            $0.severity == .warning && $0.file == "features/s1.json" && $0.path == "$.operations[0].staleIfErrorSeconds"
        }, "\(issues)")
        #expect(!issues.contains { $0.file == "features/s2.json" }, "a timeout below the deadline: no warning")
    }

    /// A Swift operation that marks its content stale, with a name that is not a token.
    struct ReportingOperation: ContentOperation {
        var name: String { "cached \"feed\"" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            builder.title = "from the cache"
            StaleContent.report(ageSeconds: 7)
        }
    }

    @Test("a Swift operation reports stale content with StaleContent.report; a name that is not a token is a quoted string")
    func swiftOperationReports() async throws {
        var extensions = SwiftExtensions()
        extensions.registerOperation("reporting") { _ in ReportingOperation() }
        var config = TestConfig()
        config.feature("cached", """
            { "id": "cached", "title": "C", "match": { "uri": "hub:cached" }, "operations": [ { "kind": "swift", "name": "reporting" } ] }
            """)
        try await withHub(config, extensions: extensions) { client, _ async throws in
            let response = try await client.view("hub:cached")
            #expect(try response.json()["title"]?.stringValue == "from the cache")
            #expect(response.header("Hub-Stale") == #""cached \"feed\"";age=7"#)
        }
    }
}
