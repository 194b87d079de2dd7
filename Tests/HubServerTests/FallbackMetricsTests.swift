import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// `hub_component_fallbacks_total{feature,component,reason}` and `components.killSwitches`
/// (docs/METRICS.md, docs/CONFIG.md), over a real socket.
@Suite("Component fallbacks counted, kill switches")
struct FallbackMetricsTests {
    static func config(server: String = TestConfig.defaultServer) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("cards", """
            { "id": "cards", "title": "Cards", "match": { "root": "hub:cards" },
              "operations": [ { "kind": "static", "json": { "body": [
                { "id": "card1", "component": { "id": "default:card", "category": "card" }, "text": { "title": "Card" } },
                { "id": "row1", "component": { "id": "default:row", "category": "row" }, "text": { "title": "Row" } } ] } } ] }
            """)
        return config
    }

    static let unsupported = #"hub_component_fallbacks_total{feature="cards",component="default:card",reason="unsupported"}"#
    static let killed = #"hub_component_fallbacks_total{feature="cards",component="default:card",reason="kill_switch"}"#

    static func cardComponent(_ response: LoopbackResponse) throws -> String? {
        try response.json().component("card1")?["component"]?["id"]?.stringValue
    }

    @Test("one per response for a component the client lacks, memo and render-cache hits included")
    func countedPerResponse() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ async throws in
            let lacking = [("Hub-Components", "default:row")]
            #expect(try await client.metric(Self.unsupported) == nil)
            let first = try await client.view("hub:cards", headers: lacking)
            #expect(try Self.cardComponent(first) == "default:row")
            #expect(try await client.metric(Self.unsupported) == 1)
            // A chain memo hit, then the same rendering from the render cache.
            let second = try await client.view("hub:cards", headers: lacking)
            #expect(second.header("Server-Timing")?.contains("(memo)") == true)
            #expect(try await client.metric(Self.unsupported) == 2)
            let session = try #require(second.header("Hub-Session"))
            _ = try await client.session(session, headers: lacking)
            _ = try await client.session(session, headers: lacking)
            #expect(try await client.metric(Self.unsupported) == 4)
            // A client that renders the card (or says nothing) adds nothing.
            let native = try await client.view("hub:cards", headers: [("Hub-Components", "default:row, default:card")])
            #expect(try Self.cardComponent(native) == "default:card")
            _ = try await client.view("hub:cards")
            #expect(try await client.metric(Self.unsupported) == 4)
        }
    }

    @Test("1,000 random unknown names in Hub-Components add no series")
    func clientNamesAreNoLabels() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ async throws in
            _ = try await client.view("hub:cards", headers: [("Hub-Components", "default:row")])
            let before = try await client.get("/metrics").text
            let seriesBefore = before.split(separator: "\n").filter { $0.hasPrefix("hub_component_fallbacks_total{") }
            #expect(seriesBefore.count == 1)
            for batch in 0..<10 {
                let names = (0..<100).map { _ in "x\(UInt32.random(in: 0...UInt32.max)):y\(batch)" }
                _ = try await client.view("hub:cards", headers: [("Hub-Components", names.joined(separator: ", "))])
            }
            let after = try await client.get("/metrics").text
            let seriesAfter = after.split(separator: "\n").filter { $0.hasPrefix("hub_component_fallbacks_total{") }
            #expect(seriesAfter.count == 1, "\(seriesAfter)")
            #expect(try await client.metric(Self.unsupported) == 11)
            #expect(!after.contains("y0\""))
        }
    }

    @Test("a Hub-Components header over 1 KiB (parsed each time, not cached) is honoured like a short one")
    func longComponentListsOverASocket() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ async throws in
            let padding = (0..<80).map { "vendor:widget-\($0)" }
            let withCard = (padding + ["default:row", "default:card"]).joined(separator: ", ")
            let withoutCard = (padding + ["default:row"]).joined(separator: ", ")
            #expect(withCard.utf8.count > 1024 && withoutCard.utf8.count > 1024)
            for round in 1...2 {
                let native = try await client.view("hub:cards", headers: [("Hub-Components", withCard)])
                #expect(try Self.cardComponent(native) == "default:card", "round \(round)")
                let replaced = try await client.view("hub:cards", headers: [("Hub-Components", withoutCard)])
                #expect(try Self.cardComponent(replaced) == "default:row", "round \(round)")
                #expect(try await client.metric(Self.unsupported) == Double(round))
                // A held session reads the long header per request as well.
                let session = try #require(replaced.header("Hub-Session"))
                let held = try await client.session(session, headers: [("Hub-Components", withCard)])
                #expect(try Self.cardComponent(held) == "default:card", "round \(round)")
            }
        }
    }

    static let killSwitchServer = """
        { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "timeouts": { "drainSeconds": 1 },
          "components": { "killSwitches": [ { "component": "default:card", "client": "ios", "below": "5.2" } ] } }
        """

    @Test("a kill switch for ios below 5.2: ios/5.1 gets the fallback (kill_switch), ios/5.2 and others do not")
    func killSwitch() async throws {
        try await withHub(Self.config(server: Self.killSwitchServer), transport: .socket) { client, _ async throws in
            let old = try await client.view("hub:cards", headers: [("Hub-Client", "ios/5.1")])
            #expect(try Self.cardComponent(old) == "default:row")
            #expect(try old.json().component("card1")?["component"]?["category"]?.stringValue == "card")
            #expect(try await client.metric(Self.killed) == 1)
            for header in ["ios/5.2", "ios/5.10.1", "android/5.1", "ios", "web/1.0"] {
                let other = try await client.view("hub:cards", headers: [("Hub-Client", header)])
                #expect(try Self.cardComponent(other) == "default:card", "\(header)")
            }
            #expect(try Self.cardComponent(try await client.view("hub:cards")) == "default:card")
            // A pre-release of 5.2 is below 5.2; the platform is case-insensitive.
            #expect(try Self.cardComponent(try await client.view("hub:cards", headers: [("Hub-Client", "iOS/5.2.0-beta.1")])) == "default:row")
            // With Hub-Components listing the card, the kill switch still wins.
            let both = try await client.view(
                "hub:cards", headers: [("Hub-Client", "ios/4"), ("Hub-Components", "default:row, default:card")])
            #expect(try Self.cardComponent(both) == "default:row")
            #expect(try await client.metric(Self.killed) == 3)
            #expect(try await client.metric(Self.unsupported) == nil)
        }
    }

    @Test("a reload applies a new kill-switch rule to a live session")
    func killSwitchReload() async throws {
        let directory = try Self.config().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, transport: .socket) { client, app async throws in
            let ios = [("Hub-Client", "ios/5.1")]
            let opened = try await client.view("hub:cards", headers: ios)
            let session = try #require(opened.header("Hub-Session"))
            #expect(try Self.cardComponent(try await client.session(session, headers: ios)) == "default:card")
            try Data(TestConfig.withGenerousTimeouts(Self.killSwitchServer).utf8)
                .write(to: URL(fileURLWithPath: directory + "/server.json"))
            let result = await app.reloadConfiguration(trigger: "test")
            #expect(result.succeeded)
            #expect(result.restartRequired.isEmpty, "\(result.restartRequired)")
            #expect(try Self.cardComponent(try await client.session(session, headers: ios)) == "default:row")
            #expect(try Self.cardComponent(try await client.session(session, headers: [("Hub-Client", "ios/5.2")])) == "default:card")
        }
    }

    @Test("an open event stream follows a reloaded kill switch from its next view")
    func killSwitchReloadOnStream() async throws {
        var config = TestConfig()
        config.feature("live", """
            { "id": "live", "title": "Live", "match": { "root": "hub:live" },
              "operations": [
                { "kind": "static", "json": { "body": [
                  { "id": "card1", "component": { "id": "default:card", "category": "card" } } ] } },
                { "kind": "swift", "name": "countAlways", "rescheduleOn": ["test:bump"] } ] }
            """)
        config["actions.json"] = #"{ "test": { "kind": "swift", "name": "test" } }"#
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = Fixture()
        try await withHub(directory: directory, extensions: fixture.extensions, transport: .socket) { client, app async throws in
            let session = try #require(try await client.view("hub:live").header("Hub-Session"))
            let stream = try await client.events(
                target: "/view/events?session=\(client.encode(session))", headers: [("Hub-Client", "ios/5.1")])
            defer { stream.close() }
            let first = try JSONParser().parse(try await stream.next().data)
            #expect(first.component("card1")?["component"]?["id"]?.stringValue == "default:card")
            try Data(TestConfig.withGenerousTimeouts(Self.killSwitchServer).utf8)
                .write(to: URL(fileURLWithPath: directory + "/server.json"))
            #expect(await app.reloadConfiguration(trigger: "test").succeeded)
            _ = try await client.action(#"{"session":"\#(session)","action":"test:bump"}"#)
            let next = try JSONParser().parse(try await stream.next().data)
            #expect(next.component("card1")?["component"]?["id"]?.stringValue == "default:row")
            #expect(try await client.metric(Self.killedLive) == 1)
        }
    }

    static let killedLive = #"hub_component_fallbacks_total{feature="live",component="default:card",reason="kill_switch"}"#

    @Test("bad kill-switch rules are config errors naming the path")
    func badRules() async throws {
        let server = """
            { "host": "127.0.0.1", "port": 0,
              "components": { "killSwitches": [ { "component": "card", "client": "ios", "below": "5.x" } ] } }
            """
        let directory = try Self.config(server: server).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            _ = try HubApplication.load(directory: directory, environment: testEnvironment)
            Issue.record("the config loaded")
        } catch {
            let text = "\(error)"
            #expect(text.contains("$.components.killSwitches[0].component"), "\(text)")
            #expect(text.contains("$.components.killSwitches[0].below"), "\(text)")
        }
    }
}
