import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// `Hub-Rebuilt`: a session rebuilt from its token tells its client whether its first chain run
/// found the session's own state (`state-kept`), looked for it and found none (`state-lost`), or
/// read none (no header). Held sessions never carry it. Over real loopback sockets, with the
/// state kept where the issue says: the default SQLite store (kept across a restart on the same
/// data directory, and across an expiry here) and another replica's own empty store (lost).
@Suite("Rebuilt sessions say what they found of their state (Hub-Rebuilt)", .serialized)
struct RebuiltStateTests {
    /// Reads the session-scoped counter `visits` and shows it (`custom.visits`, 0 when none); a
    /// page adds a row (for next-page).
    struct SessionCounter: ContentOperationWithPaginatedContent {
        var name: String { "session-counter" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            let visits = try await context.state.read("visits")?.value.intValue ?? 0
            builder.body.update("visits") { $0.title = "visits \(visits)" }
            builder.setCustomDataValue(.int(visits), forKey: "visits")
        }
        func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws {
            builder.body.update("page-\(pageIndex)") { $0.title = "page \(pageIndex)" }
        }
    }

    /// Reads a subject-scoped key only (state, but not the session's own).
    struct SubjectReader: ContentOperation {
        var name: String { "subject-reader" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            let value = try await context.state.read("motd", in: .subject("everyone"))?.value.stringValue ?? "none"
            builder.body.update("motd") { $0.title = value }
        }
    }

    /// Reads no state at all (a Swift operation: not memoized, so its session is stored).
    struct StatelessOperation: ContentOperation {
        var name: String { "stateless" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            builder.body.update("plain") { $0.title = "plain" }
        }
    }

    /// Writes a session key (without reading it first), then reads it back: the value it finds
    /// is the run's own, not the session's.
    struct SelfWriter: ContentOperation {
        var name: String { "self-writer" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            // A fresh store (each session's first run here) has no value: version 0.
            try await context.state.write("opened", .bool(true), expecting: 0)
            let reread = try await context.state.read("opened")
            builder.body.update("opened") { $0.title = reread == nil ? "no" : "yes" }
        }
    }

    static let server = """
        { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "timeouts": { "drainSeconds": 1 },
          "limits": { "sessionsPerClient": { "perSecond": 10000, "burst": 10000 },
                      "actionsPerClient": { "perSecond": 10000, "burst": 10000 } }STATE }
        """

    /// The test config; `memoryState`: this hub keeps state in memory (a replica with a store of its own).
    static func config(memoryState: Bool = false) -> TestConfig {
        var config = TestConfig(
            server: server.replacingOccurrences(
                of: "STATE", with: memoryState ? #", "state": { "backend": "memory" }"# : ""))
        config["actions.json"] = #"{ "counter": { "kind": "swift", "name": "counter" } }"#
        for (name, operation) in [
            ("counter", "session-counter"), ("subject", "subject-reader"), ("stateless", "stateless"),
            ("selfwriter", "self-writer"),
        ] {
            config.feature(name, """
                { "id": "\(name)", "title": "\(name)", "match": { "root": "hub:\(name)" }, "reload": "never",
                  "operations": [ { "kind": "swift", "name": "\(operation)" } ] }
                """)
        }
        return config
    }

    static var extensions: SwiftExtensions {
        var extensions = SwiftExtensions()
        extensions.registerOperation("session-counter") { _ in SessionCounter() }
        extensions.registerOperation("subject-reader") { _ in SubjectReader() }
        extensions.registerOperation("stateless") { _ in StatelessOperation() }
        extensions.registerOperation("self-writer") { _ in SelfWriter() }
        extensions.registerActionFactory("counter", ClosureActionFactory([
            "bump": { context in
                try await context.state.update("visits") { value in
                    value = .int((value?.intValue ?? 0) + 1)
                    return true
                }
                return .performed
            },
        ]))
        return extensions
    }

    /// A data directory of its own (created by the hub).
    static func freshDataDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hub-rebuilt-\(UUID().uuidString)").path
    }

    /// Opens the counter view on `client` and bumps its session's counter `times`; returns the token.
    static func counterSession(on client: HubClient, bumps times: Int) async throws -> String {
        let opened = try await client.view("hub:counter")
        #expect(opened.status == 200)
        #expect(opened.header("Hub-Rebuilt") == nil, "a new session was not rebuilt")
        let token = try #require(opened.header("Hub-Session"))
        for _ in 0..<times {
            let bumped = try await client.action(#"{"session":"\#(token)","action":"counter:bump"}"#)
            #expect(bumped.status == 200, "\(bumped)")
            #expect(bumped.header("Hub-Rebuilt") == nil, "held: no header")
        }
        return token
    }

    @Test("another replica with a store of its own: GET /view answers Hub-Rebuilt: state-lost, counted; the held session after it, and on its own replica, carries none")
    func replicaWithItsOwnStoreLostTheState() async throws {
        try await withHub(Self.config(), extensions: Self.extensions, transport: .socket) { a, _ in
            let token = try await Self.counterSession(on: a, bumps: 2)
            let held = try await a.session(token)
            #expect(try held.json()["custom"]?["visits"]?.intValue == 2)
            #expect(held.header("Hub-Rebuilt") == nil, "a held session never carries the header")

            // The same session key (the test process's data directory), state in memory: another replica.
            try await withHub(Self.config(memoryState: true), extensions: Self.extensions, transport: .socket) { b, _ in
                let rebuilt = try await b.session(token)
                #expect(rebuilt.status == 200, "\(rebuilt)")
                #expect(rebuilt.header("Hub-Session") == token)
                #expect(try rebuilt.json()["custom"]?["visits"]?.intValue == 0, "the replica's store has no counter")
                #expect(rebuilt.header("Hub-Rebuilt") == "state-lost")
                #expect(try await b.metric(#"hub_sessions_rebuilt_state_total{outcome="lost"}"#) == 1)
                #expect(try await b.metric(#"hub_sessions_rebuilt_state_total{outcome="kept"}"#) == 0)
                #expect(try await b.metric(#"hub_sessions_rebuilt_total{reason="unknown"}"#) == 1)

                let again = try await b.session(token)
                #expect(again.status == 200)
                #expect(again.header("Hub-Rebuilt") == nil, "held on B now")
                let action = try await b.action(#"{"session":"\#(token)","action":"counter:bump"}"#)
                #expect(action.status == 200)
                #expect(action.header("Hub-Rebuilt") == nil, "held on B now")
            }
        }
    }

    @Test("a session that never wrote its state, rebuilt elsewhere, reports state-lost too (never written looks like gone)")
    func neverWrittenReportsLost() async throws {
        try await withHub(Self.config(), extensions: Self.extensions, transport: .socket) { a, _ in
            let token = try await Self.counterSession(on: a, bumps: 0)
            try await withHub(Self.config(memoryState: true), extensions: Self.extensions, transport: .socket) { b, _ in
                let rebuilt = try await b.action(#"{"session":"\#(token)","action":"counter:bump"}"#)
                #expect(rebuilt.status == 200, "\(rebuilt)")
                #expect(rebuilt.header("Hub-Rebuilt") == "state-lost")
                #expect(try rebuilt.json()["view"]?["custom"]?["visits"]?.intValue == 1, "the action ran on the rebuilt session")
            }
        }
    }

    @Test("restarted on the same SQLite data directory: POST /action that rebuilds answers Hub-Rebuilt: state-kept, the counter intact")
    func restartOnTheSameDataDirectoryKeptTheState() async throws {
        let dataDirectory = Self.freshDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        var environment = testEnvironment
        environment["HUB_DATA_DIR"] = dataDirectory
        let token = try await withHub(Self.config(), extensions: Self.extensions, environment: environment, transport: .socket) {
            a, _ in try await Self.counterSession(on: a, bumps: 2)
        }
        try await withHub(Self.config(), extensions: Self.extensions, environment: environment, transport: .socket) { a, _ in
            let rebuilt = try await a.action(#"{"session":"\#(token)","action":"counter:bump"}"#)
            #expect(rebuilt.status == 200, "\(rebuilt)")
            #expect(rebuilt.header("Hub-Rebuilt") == "state-kept")
            #expect(try rebuilt.json()["view"]?["custom"]?["visits"]?.intValue == 3)
            #expect(try await a.metric(#"hub_sessions_rebuilt_state_total{outcome="kept"}"#) == 1)
            #expect(try await a.metric(#"hub_sessions_rebuilt_state_total{outcome="lost"}"#) == 0)
        }
    }

    @Test("expired here, same store: GET (200 and 304), HEAD and next-page that rebuild say state-kept; HEAD stores nothing")
    func expiredHereKeptTheState() async throws {
        try await withHub(Self.config(), extensions: Self.extensions, transport: .socket) { a, app in
            let token = try await Self.counterSession(on: a, bumps: 1)
            func expire() { #expect(app.engine.sessions.removeExpired(now: .now + .seconds(7200)) == 1) }

            expire()
            let head = try await a.send("HEAD", "/view?session=\(a.encode(token))")
            #expect(head.status == 200)
            #expect(head.header("Hub-Rebuilt") == "state-kept")
            #expect(app.engine.session(for: token) == nil, "HEAD kept nothing")

            let get = try await a.session(token)
            #expect(get.status == 200)
            #expect(get.header("Hub-Rebuilt") == "state-kept")
            #expect(try get.json()["custom"]?["visits"]?.intValue == 1)
            #expect(try await a.metric(#"hub_sessions_rebuilt_total{reason="expired"}"#) == 1)

            expire()
            let etag = try #require(get.header("ETag"))
            let notModified = try await a.session(token, headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304, "the same view, rebuilt")
            #expect(notModified.header("Hub-Rebuilt") == "state-kept", "a 304 keeps the response's own fields")

            expire()
            let page = try await a.post("/view/next-page", #"{"session":"\#(token)"}"#)
            #expect(page.status == 200, "\(page)")
            #expect(page.header("Hub-Rebuilt") == "state-kept")
            #expect(try page.json().bodyIDs.contains("page-1"))
            let heldPage = try await a.post("/view/next-page", #"{"session":"\#(token)"}"#)
            #expect(heldPage.status == 200)
            #expect(heldPage.header("Hub-Rebuilt") == nil, "held")
            #expect(try await a.metric(#"hub_sessions_rebuilt_state_total{outcome="kept"}"#) == 3, "HEAD's rebuild is not counted")
        }
    }

    @Test("no header when the rebuild read no session-scoped state: none at all, a subject's only, or only what the run wrote itself")
    func noSessionStateReadNoHeader() async throws {
        try await withHub(Self.config(), extensions: Self.extensions, transport: .socket) { a, _ in
            var tokens: [String] = []
            for uri in ["hub:stateless", "hub:subject", "hub:selfwriter"] {
                let opened = try await a.view(uri)
                #expect(opened.status == 200)
                tokens.append(try #require(opened.header("Hub-Session")))
            }
            try await withHub(Self.config(memoryState: true), extensions: Self.extensions, transport: .socket) { b, _ in
                for token in tokens {
                    let rebuilt = try await b.session(token)
                    #expect(rebuilt.status == 200, "\(rebuilt)")
                    #expect(rebuilt.header("Hub-Session") == token)
                    #expect(rebuilt.header("Hub-Rebuilt") == nil, "\(token): nothing of the session's own to lose")
                }
                #expect(try await b.metric(#"hub_sessions_rebuilt_total{reason="unknown"}"#) == 3, "all three were rebuilds")
                #expect(try await b.metric(#"hub_sessions_rebuilt_state_total{outcome="lost"}"#) == 0)
                #expect(try await b.metric(#"hub_sessions_rebuilt_state_total{outcome="kept"}"#) == 0)
            }
        }
    }

    @Test("an event stream that rebuilds: Hub-Rebuilt on its response, event: rebuilt before the first view; a held stream has neither")
    func eventStreamSaysItFirst() async throws {
        try await withHub(Self.config(), extensions: Self.extensions, transport: .socket) { a, app in
            let token = try await Self.counterSession(on: a, bumps: 1)
            try await withHub(Self.config(memoryState: true), extensions: Self.extensions, transport: .socket) { b, _ in
                let stream = try await b.events(session: token)
                defer { stream.close() }
                #expect(stream.status == 200)
                #expect(stream.header("Hub-Rebuilt") == "state-lost")
                let first = try await stream.next()
                #expect(first.event == "rebuilt")
                #expect(first.data == #"{"rebuilt":"state-lost"}"#)
                #expect(first.id == nil, "Last-Event-ID stays the last view's")
                let view = try await stream.next()
                #expect(view.event == "view")
                #expect(try JSONParser().parse(view.data)["custom"]?["visits"]?.intValue == 0)

                let heldStream = try await b.events(session: token)
                defer { heldStream.close() }
                #expect(heldStream.header("Hub-Rebuilt") == nil)
                #expect(try await heldStream.next().event == "view", "held: the view comes first")
            }
            // Expired on A, whose store has the counter: the stream that rebuilds it says state-kept.
            #expect(app.engine.sessions.removeExpired(now: .now + .seconds(7200)) == 1)
            let kept = try await a.events(session: token)
            defer { kept.close() }
            #expect(kept.header("Hub-Rebuilt") == "state-kept")
            let first = try await kept.next()
            #expect(first.event == "rebuilt" && first.data == #"{"rebuilt":"state-kept"}"#)
            let view = try await kept.next()
            #expect(view.event == "view")
            #expect(try JSONParser().parse(view.data)["custom"]?["visits"]?.intValue == 1)
        }
    }
}
