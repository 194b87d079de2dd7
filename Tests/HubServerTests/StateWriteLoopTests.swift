import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// State written by content operations (docs/EMBEDDING.md "State that lasts"): a session's own
/// writes during its chain run never re-run its own chain, while other sessions that read the
/// key still re-run; and a loop between sessions is noticed, reported and paused.
@Suite("State writes in content operations", .serialized)
struct StateWriteLoopTests {
    /// Reads `notes` (session scope), keeps a render counter in `renders` (session scope) and,
    /// when `shared` is set, bumps a counter every session of the feature reads (subject scope).
    struct NotesOperation: ContentOperation {
        let shared: Bool
        var name: String { "notes" }

        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            let notes = try await context.state.read("notes")?.value.arrayValue?.count ?? 0
            let renders = try await context.state.update("renders") { value in
                value = .int((value?.intValue ?? 0) + 1)
                return true
            }
            var sharedCount = 0
            if shared {
                sharedCount = try await context.state.read("count", in: .subject("everyone"))?.value.intValue ?? 0
                try await context.state.update("count", in: .subject("everyone")) { value in
                    value = .int((value?.intValue ?? 0) + 1)
                    return true
                }
            }
            builder.body.update("notes") { component in
                component.title = "\(notes) note(s)"
                component.subtitle = "rendered \(renders?.value.intValue ?? 0) time(s), shared \(sharedCount)"
            }
        }
    }

    static func setup(shared: Bool) -> (TestConfig, SwiftExtensions) {
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "state": { "backend": "memory" } }
            """)
        config.feature("notes", """
            { "id": "notes", "title": "Notes", "match": { "uri": "hub:notes" },
              "operations": [ { "kind": "swift", "name": "notes" } ] }
            """)
        config["actions.json"] = #"{ "notes": { "kind": "swift", "name": "notes" } }"#
        var extensions = SwiftExtensions()
        extensions.registerOperation("notes") { _ in NotesOperation(shared: shared) }
        extensions.registerActionFactory("notes", ClosureActionFactory([
            "add": { context in
                try await context.state.update("notes") { value in
                    value = .array((value?.arrayValue ?? []) + [.string("a note")])
                    return true
                }
                return .performed
            },
        ]))
        return (config, extensions)
    }

    /// The session's `renders` counter, read from the store.
    static func renders(_ app: HubApplication, token: String) async throws -> Int {
        let id = String(try #require(token.split(separator: ".").first))
        let record = try await app.engine.stateStore.read(try StateKey("renders", in: .session, sessionID: id), now: 0)
        let value = try record.map { try JSONParser().parse($0.bytes) }
        return value?.intValue ?? 0
    }

    @Test("an operation that reads what an action writes and keeps a counter: one action, a handful of runs, then quiet")
    func ownWritesDoNotLoop() async throws {
        let (config, extensions) = Self.setup(shared: false)
        try await withHub(config, extensions: extensions) { client, app in
            let token = try #require(try await client.view("hub:notes").header("Hub-Session"))
            #expect(try await client.session(token).status == 200)
            let before = try await Self.renders(app, token: token)
            let acted = try await client.action(#"{"session":"\#(token)","action":"notes:add"}"#)
            #expect(acted.status == 200)
            #expect(try acted.json()["view"]?.component("notes")?["text"]?["title"]?.stringValue == "1 note(s)")
            let after = try await Self.renders(app, token: token)
            #expect(after - before <= 2, "the action re-ran the chain once (\(before) -> \(after))")
            // Quiet afterwards: nothing the session wrote itself schedules another run.
            for _ in 0..<20 { await Task.yield() }
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await Self.renders(app, token: token) == after, "no run after the action's")
            #expect(app.engine.counters.stateReruns == 0, "the session's own writes re-ran nothing")
        }
    }

    @Test("another session that reads the key still re-runs; two sessions writing what the other reads are stopped and reported")
    func loopBetweenSessionsIsStopped() async throws {
        let (config, extensions) = Self.setup(shared: true)
        try await withHub(config, extensions: extensions) { client, app in
            let first = try #require(try await client.view("hub:notes").header("Hub-Session"))
            #expect(try await client.session(first).status == 200)
            // The second session's first run bumps the shared counter: the first session reads
            // it, so it re-runs (and bumps it too, which re-runs the second, ...): a loop the
            // guard stops.
            let second = try #require(try await client.view("hub:notes").header("Hub-Session"))
            #expect(try await client.session(second).status == 200)
            #expect(await eventually { app.engine.counters.stateLoops >= 1 }, "the loop was noticed")
            #expect(try await client.metric(#"hub_state_rerun_loops_total{feature="notes"}"#) ?? 0 >= 1)
            #expect(app.engine.counters.stateReruns >= 1, "another session's write re-ran a reader")
            // Both sessions are paused now: the shared counter stops moving.
            #expect(try await eventually {
                let key = try StateKey("count", in: .subject("everyone"), sessionID: "")
                let before = try await app.engine.stateStore.read(key, now: 0)?.version
                try await Task.sleep(for: .milliseconds(300))
                return try await app.engine.stateStore.read(key, now: 0)?.version == before
            })
            // The sessions still answer their clients.
            #expect(try await client.session(first).status == 200)
            #expect(try await client.session(second).status == 200)
        }
    }
}
