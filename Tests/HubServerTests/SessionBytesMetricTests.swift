import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// `hub_sessions_bytes` beside `hub_sessions_active`, and `sessions.maxBytes` reaching the store.
@Suite("Session bytes metric")
struct SessionBytesMetricTests {
    static func config(server: String = TestConfig.defaultServer) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("rows", """
            { "id": "rows", "title": "Rows", "match": { "root": "hub:rows" },
              "operations": [ { "kind": "swift", "name": "rows" } ] }
            """)
        return config
    }

    static func extensions(_ rows: Locked<Int>) -> SwiftExtensions {
        var extensions = SwiftExtensions()
        extensions.registerOperation("rows") { _ in
            BlockContentOperation(name: "rows") { builder, _ in
                for index in 0..<rows.withLock({ $0 }) {
                    builder.body.update("row-\(index)") { $0.title = "Row \(index): a title long enough for the heap" }
                }
            }
        }
        return extensions
    }

    @Test("hub_sessions_bytes follows the held sessions' views: up with rows, down when a session ends")
    func gaugeMoves() async throws {
        let rows = Locked(1)
        try await withHub(Self.config(), extensions: Self.extensions(rows)) { client, app async throws in
            #expect(try await client.metric("hub_sessions_bytes") == 0)
            let opened = try await client.view("hub:rows")
            #expect(opened.status == 200)
            let token = try #require(opened.header("Hub-Session"))
            let small = try #require(try await client.metric("hub_sessions_bytes"))
            #expect(small > 0)
            #expect(try await client.metric("hub_sessions_active") == 1)
            rows.withLock { $0 = 40 }
            #expect(try await client.session(token).status == 200)
            let large = try #require(try await client.metric("hub_sessions_bytes"))
            #expect(large > small + 40 * 100)
            #expect(Int(large) == app.engine.sessions.statistics.bytes)
            #expect(try await client.delete("/view?session=\(token)").status == 204)
            #expect(try await client.metric("hub_sessions_bytes") == 0)
        }
    }

    @Test("sessions.maxBytes bounds the store; absent, there is no byte cap")
    func configuredCap() async throws {
        let capped = """
            { "host": "127.0.0.1", "port": 0, "sessions": { "maxBytes": 1048576 }, "log": { "level": "error" } }
            """
        try await withHub(Self.config(server: capped), extensions: Self.extensions(Locked(1))) { _, app async throws in
            #expect(app.engine.sessions.maxBytes == 1_048_576)
        }
        try await withHub(Self.config(), extensions: Self.extensions(Locked(1))) { _, app async throws in
            #expect(app.engine.sessions.maxBytes == .max)
        }
    }
}
