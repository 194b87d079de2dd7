import Foundation
import HubModel
import HubTestSupport
import Testing

/// A view pushed to many listeners is encoded once (`hub_sse_view_events_encoded_total`), not
/// once per listener: the listeners of one session share its rendering (also when nothing but
/// the listeners renders it, as after a config reload's re-run), and sessions that share a
/// memoized view model share its rendering through the render cache.
@Suite("Shared view events")
struct SharedViewEventTests {
    static let server = """
        { "host": "127.0.0.1", "port": 0,
          "limits": { "sseListenersPerSession": 16, "sseStreams": 100 },
          "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }
        """
    static let encoded = "hub_sse_view_events_encoded_total"

    @Test("one session, 6 listeners, one action: every listener gets the same view event, encoded once")
    func listenersOfOneSession() async throws {
        try await withStandardHub(server: Self.server, transport: .socket) { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            var streams: [SSEStream] = []
            defer { for stream in streams { stream.close() } }
            for _ in 0..<6 {
                let stream = try await client.events(session: session)
                #expect(stream.status == 200)
                #expect(try await stream.next().event == "view")
                streams.append(stream)
            }
            let before = try #require(try await client.metric(Self.encoded))

            #expect(try await client.action(#"{"session":"\#(session)","action":"test:bump"}"#).status == 200)
            var events: [(id: String?, data: String)] = []
            for stream in streams {
                let event = try await stream.next()
                #expect(event.event == "view")
                events.append((event.id, event.data))
            }
            #expect(try JSONParser().parse(events[0].data)["custom"]?["runs"]?.intValue == 2)
            #expect(events.allSatisfy { $0.id == events[0].id && $0.data == events[0].data })
            let after = try #require(try await client.metric(Self.encoded))
            #expect(after - before == 1, "encoded \(after - before) times for 6 listeners")
        }
    }

    @Test("three sessions of one memoized view: their listeners' first events are one encoding")
    func sessionsSharingTheMemo() async throws {
        try await withStandardHub(server: Self.server, transport: .socket) { client, _, _ in
            // The first view of a feature fills the memo; these three answer from it.
            #expect(try await client.view("hub:static").status == 200)
            var sessions: [String] = []
            for _ in 0..<3 { sessions.append(try #require(try await client.view("hub:static").header("Hub-Session"))) }
            #expect(Set(sessions).count == 3)
            let before = try #require(try await client.metric(Self.encoded))
            var streams: [SSEStream] = []
            defer { for stream in streams { stream.close() } }
            var data: [String] = []
            for session in sessions {
                let stream = try await client.events(session: session)
                streams.append(stream)
                let event = try await stream.next()
                #expect(event.event == "view")
                data.append(event.data)
            }
            #expect(Set(data).count == 1)
            let after = try #require(try await client.metric(Self.encoded))
            #expect(after - before == 1, "encoded \(after - before) times for 3 listeners of one memoized view")
        }
    }

    @Test("a config reload re-runs a session of its own view: its 5 listeners get the new view, encoded once")
    func listenersAfterAReloadRerun() async throws {
        let fixture = Fixture()
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "reload": { "debounceMs": 20 } }
            """)
        // A Swift operation makes the view the session's own (not memoized).
        config.feature("page", """
            { "id": "page", "title": "Page", "match": { "root": "hub:page" },
              "operations": [ { "kind": "static", "file": "content/page.json" }, { "kind": "swift", "name": "observer" } ] }
            """)
        config["content/page.json"] = ConfigReloadTests.pageContent("Before")
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(
            directory: directory, extensions: fixture.extensions, environment: ConfigReloadTests.watching, transport: .socket
        ) { client, _ in
            let token = try await ConfigReloadTests.usedSession(client, "hub:page")
            var streams: [SSEStream] = []
            defer { for stream in streams { stream.close() } }
            for _ in 0..<5 {
                let stream = try await client.events(session: token)
                #expect(try await stream.next().data.contains("Before"))
                streams.append(stream)
            }
            let before = try #require(try await client.metric(Self.encoded))

            try ConfigReloadTests.save(ConfigReloadTests.pageContent("After"), to: directory + "/content/page.json")
            var data: [String] = []
            for stream in streams {
                let event = try await stream.next()
                #expect(event.event == "view")
                data.append(event.data)
            }
            #expect(data[0].contains("After"))
            #expect(Set(data).count == 1)
            let after = try #require(try await client.metric(Self.encoded))
            #expect(after - before == 1, "encoded \(after - before) times for 5 listeners of one session")
        }
    }
}
