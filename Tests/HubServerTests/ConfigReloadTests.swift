import Foundation
import HubEngine
import HubHTTP
import HubServer
import HubTestSupport
import Testing

/// Config hot reload over real sockets: a watched edit reaches `GET /view` and SSE listeners,
/// a broken edit keeps the old config serving, removed features end their sessions, settings
/// that need a restart keep their value, and a Kubernetes ConfigMap's `..data` swap is seen.
@Suite("Config hot reload")
struct ConfigReloadTests {
    /// Watching on (tests default to off), with a short debounce.
    static let watching: [String: String] = ["HUB_CONFIG_WATCH": "1"]

    static func config(title: String = "Before") -> TestConfig {
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "reload": { "debounceMs": 20 } }
            """)
        config.feature("page", """
            { "id": "page", "title": "Page", "match": { "root": "hub:page" },
              "operations": [ { "kind": "static", "file": "content/page.json" } ] }
            """)
        config["content/page.json"] = pageContent(title)
        config.feature("other", """
            { "id": "other", "title": "Other", "match": { "root": "hub:other" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "o", "text": { "title": "Unchanged" } } ] } } ] }
            """)
        return config
    }

    static func pageContent(_ title: String) -> String {
        #"{ "body": [ { "id": "a", "text": { "title": "\#(title)" } } ] }"#
    }

    /// Writes `content` the way editors save: a temporary file renamed over the original.
    static func save(_ content: String, to path: String) throws {
        let temporary = path + ".tmp~"
        try Data(content.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// A used session of `uri` (its token, after a second request names it).
    static func usedSession(_ client: HubClient, _ uri: String) async throws -> String {
        let token = try #require(try await client.view(uri).header("Hub-Session"))
        #expect(try await client.session(token).status == 200)
        return token
    }

    @Test("a watched content edit reaches GET /view and the SSE listener of a live session")
    func watchedEdit() async throws {
        let directory = try Self.config().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, environment: Self.watching, transport: .socket) { client, _ in
            let token = try await Self.usedSession(client, "hub:page")
            let events = try await client.events(session: token)
            defer { events.close() }
            #expect(try await events.next().data.contains("Before"))

            try Self.save(Self.pageContent("After"), to: directory + "/content/page.json")
            let pushed = try await events.next()
            #expect(pushed.event == "view")
            #expect(pushed.data.contains("After"))
            #expect(try await client.view("hub:page").text.contains("After"))
            #expect(try await client.session(token).text.contains("After"))
            #expect(try await client.metric(#"hub_config_reloads_total{result="success"}"#) ?? 0 >= 1)
            #expect(try await client.metric("hub_config_last_reload_successful") == 1)
        }
    }

    @Test("a broken edit is refused: the old config keeps serving and the failure is counted")
    func brokenEditRefused() async throws {
        let directory = try Self.config().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, environment: Self.watching, transport: .socket) { client, _ in
            try Self.save(#"{ "id": "page", "title": "#, to: directory + "/features/page.json")
            #expect(try await eventually {
                try await client.metric(#"hub_config_reloads_total{result="failure"}"#) ?? 0 >= 1
            })
            #expect(try await client.metric("hub_config_last_reload_successful") == 0)
            let view = try await client.view("hub:page")
            #expect(view.status == 200)
            #expect(view.text.contains("Before"))

            // Fixed again: the next reload succeeds.
            try Self.save(Self.config()["features/page.json"]!, to: directory + "/features/page.json")
            #expect(try await eventually { try await client.metric("hub_config_last_reload_successful") == 1 })
        }
    }

    @Test("only sessions of changed features re-run; the report names them")
    func onlyChangedFeaturesRerun() async throws {
        let directory = try Self.config().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, transport: .socket) { client, app in
            let page = try await Self.usedSession(client, "hub:page")
            let other = try await Self.usedSession(client, "hub:other")
            let otherETag = try await client.session(other).header("ETag")
            try Self.save(Self.pageContent("After"), to: directory + "/content/page.json")

            let result = await app.reloadConfiguration(trigger: "test")
            #expect(result.succeeded)
            let report = try #require(result.engine)
            #expect(report.changed == ["page"])
            #expect(report.sessionsRerun == 0, "no listener: nothing re-runs at reload time")
            #expect(report.sessionsStale == 1)
            #expect(report.sessionsUntouched == 1)
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="lazy"}"#) == 0)
            // The stale session re-runs on its next request, once.
            #expect(try await client.session(page).text.contains("After"))
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="lazy"}"#) == 1)
            #expect(try await client.session(other).header("ETag") == otherETag)
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="lazy"}"#) == 1, "an unchanged feature's session does not re-run")

            // Nothing changed on disk: nothing re-runs.
            let again = try #require(await app.reloadConfiguration(trigger: "test").engine)
            #expect(again.changed.isEmpty)
            #expect(again.sessionsRerun == 0 && again.sessionsStale == 0)
            _ = try await client.session(page)
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="lazy"}"#) == 1)
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="eager"}"#) == 0)
        }
    }

    @Test("a removed feature ends its sessions: listeners get an end event, the token answers 404")
    func removedFeatureEndsSessions() async throws {
        let directory = try Self.config().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, transport: .socket) { client, app in
            let token = try await Self.usedSession(client, "hub:page")
            let events = try await client.events(session: token)
            defer { events.close() }
            _ = try await events.next()
            try FileManager.default.removeItem(atPath: directory + "/features/page.json")

            let report = try #require(await app.reloadConfiguration(trigger: "test").engine)
            #expect(report.removed == ["page"])
            #expect(report.sessionsEnded == 1)
            let end = try await events.next()
            #expect(end.event == "end")
            #expect(end.data.contains("feature_removed"))
            try expectProblem(try await client.session(token), 404, "session_not_found")
            try expectProblem(try await client.view("hub:page"), 404)
            #expect(try await client.view("hub:other").status == 200)
        }
    }

    @Test("settings that need a restart keep their value and are reported")
    func restartOnlySettings() async throws {
        let directory = try Self.config().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, transport: .socket) { client, app in
            try Self.save("""
                { "host": "127.0.0.1", "port": 1, "connectionBalancing": "round-robin",
                  "timeouts": { "drainSeconds": 1, "operationSeconds": 7 },
                  "log": { "level": "error" }, "limits": { "bodyBytes": 10 } }
                """, to: directory + "/server.json")
            let result = await app.reloadConfiguration(trigger: "test")
            #expect(result.succeeded)
            #expect(result.restartRequired.contains("port"))
            #expect(result.restartRequired.contains("limits"))
            #expect(result.restartRequired.contains("connectionBalancing"))
            #expect(app.configuration.settings.port == 0)
            #expect(app.configuration.settings.connectionBalancing == .idleLoopFirst)
            #expect(app.configuration.settings.limits.bodyBytes == 1_048_576)
            #expect(app.configuration.settings.timeouts.operationSeconds == 7, "applied live")
            // A changed operation deadline changes every feature's chain.
            #expect(Set(result.engine?.changed ?? []) == ["page", "other"])
            #expect(try await client.view("hub:page").status == 200)
        }
    }

    @Test("a Kubernetes ConfigMap update (an atomic swap of the ..data symlink) is reloaded")
    func configMapSymlinkSwap() async throws {
        // The layout kubelet writes: files in a timestamped directory, `..data` pointing at it,
        // and the visible names symlinks through `..data`.
        let source = try Self.config().write()
        defer { try? FileManager.default.removeItem(atPath: source) }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hub-configmap-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: root, withIntermediateDirectories: true)
        try fileManager.copyItem(atPath: source, toPath: root + "/..2026_11_25_01")
        try fileManager.createSymbolicLink(atPath: root + "/..data", withDestinationPath: "..2026_11_25_01")
        for name in ["server.json", "features", "content"] {
            try fileManager.createSymbolicLink(atPath: root + "/" + name, withDestinationPath: "..data/" + name)
        }
        try await withHub(directory: root, environment: Self.watching, transport: .socket) { client, _ in
            #expect(try await client.view("hub:page").text.contains("Before"))
            // The update: a new timestamped directory, then `..data_tmp` renamed over `..data`.
            try fileManager.copyItem(atPath: root + "/..2026_11_25_01", toPath: root + "/..2026_11_25_02")
            try Data(Self.pageContent("After").utf8).write(to: URL(fileURLWithPath: root + "/..2026_11_25_02/content/page.json"))
            try fileManager.createSymbolicLink(atPath: root + "/..data_tmp", withDestinationPath: "..2026_11_25_02")
            #expect(rename(root + "/..data_tmp", root + "/..data") == 0)
            try fileManager.removeItem(atPath: root + "/..2026_11_25_01")
            #expect(try await eventually { try await client.view("hub:page").text.contains("After") })
        }
    }
}
