import Foundation
import HubDemo
import HubModel
import HubServer
import HubTestSupport
import Testing

/// The repository's own `Config/` (the embedded demo) served by a real server.
@Suite("Demo config")
struct DemoConfigTests {
    static var demoDirectory: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // HubServerTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository
            .appendingPathComponent("Config").path
    }

    /// The demo listens on 127.0.0.1:8080; the environment overrides that for the test, keeps what
    /// the server makes in the test process's data directory (not a `.hub-data` in the working
    /// directory, one SQLite file every test server would open at once) and does not watch the
    /// config (an inotify instance per test server).
    static let environment = [
        "HUB_HOST": "127.0.0.1", "HUB_PORT": "0", "HUB_LOG_LEVEL": "error", "HUB_DATA_DIR": testDataDirectory,
        "HUB_CONFIG_WATCH": "0",
    ]

    /// A copy of the demo `Config/` in a new temporary directory, its server.json with
    /// ``TestConfig/generousTimeouts`` over its own (the demo's 2 s operation deadline is for a
    /// person waiting, not for a loaded test machine, where a chain that took longer answers the
    /// demo's recover view instead). The caller removes it.
    static func demoCopy() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-demo-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: demoDirectory, toPath: directory)
        let server = URL(fileURLWithPath: directory + "/server.json")
        var settings = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: server)) as? [String: Any])
        for (section, key, value) in TestConfig.generousTimeouts {
            var values = settings[section] as? [String: Any] ?? [:]
            values[key] = value
            settings[section] = values
        }
        try JSONSerialization.data(withJSONObject: settings).write(to: server)
        return directory
    }

    /// Serves a ``demoCopy()`` (removed afterwards) with ``environment`` unless given another.
    static func withDemoHub<T>(
        environment: [String: String] = Self.environment, transport: TestTransport = .memory,
        _ body: (HubClient, HubApplication) async throws -> T
    ) async throws -> T {
        let directory = try demoCopy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await withHub(
            directory: directory, extensions: DemoExtensions.make(), environment: environment, transport: transport, body)
    }

    @Test("hub:food, hub:home, hub:todo and hub:catalog answer 200")
    func demoViews() async throws {
        try await Self.withDemoHub {
            client, _ in
            for uri in ["hub:food", "hub:home", "hub:todo", "hub:catalog"] {
                let response = try await client.view(uri)
                #expect(response.status == 200, "\(uri): \(response)")
                let view = try response.json()
                #expect(!view.bodyIDs.isEmpty, "\(uri) has a body")
            }
            let grid = try await client.view("hub:home", headers: [("Hub-Toggle", "homeLayout=grid")]).json()
            #expect(grid.component("layout")?["text"]?["title"]?.stringValue == "Grid layout")
        }
    }

    @Test("the todo round trip: add, then select a row to delete it")
    func todoRoundTrip() async throws {
        try await Self.withDemoHub {
            client, _ in
            let opened = try await client.view("hub:todo")
            let session = try #require(opened.header("Hub-Session"))
            #expect(try opened.json()["custom"]?["todoCount"]?.intValue == 3)
            let added = try await client.action(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"Ship it"}}"#)
            #expect(added.status == 200, "\(added)")
            let addedBody = try added.json()
            #expect(addedBody["performed"]?.boolValue == true)
            #expect(addedBody["view"]?["custom"]?["todoCount"]?.intValue == 4)
            let deleted = try await client.action(#"{"session":"\#(session)","component":"todo-1"}"#)
            let deletedBody = try deleted.json()
            #expect(deletedBody["performed"]?.boolValue == true)
            #expect(deletedBody["view"]?.component("todo-1") == nil)
            #expect(deletedBody["view"]?["custom"]?["todoCount"]?.intValue == 3)
            // The demo vetoes todo:clear: not performed, the list stays.
            let cleared = try await client.action(#"{"session":"\#(session)","action":"todo:clear"}"#)
            let clearedBody = try cleared.json()
            #expect(clearedBody["performed"]?.boolValue == false)
            #expect(clearedBody["view"]?["custom"]?["todoCount"]?.intValue == 3)
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","action":"todo:reset"}"#), 404, "action_not_found")
        }
    }

    @Test("the catalog pages through file:// content")
    func catalogPages() async throws {
        try await Self.withDemoHub {
            client, _ in
            let first = try await client.view("hub:catalog")
            let session = try #require(first.header("Hub-Session"))
            let count = try first.json().bodyIDs.count
            let next = try await client.post("/view/next-page", #"{"session":"\#(session)"}"#)
            #expect(next.status == 200, "\(next)")
            #expect(try next.json().bodyIDs.count > count)
        }
    }
}
