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

    /// The demo listens on 0.0.0.0:8080; the environment overrides that for the test.
    static let environment = ["HUB_HOST": "127.0.0.1", "HUB_PORT": "0", "HUB_LOG_LEVEL": "error"]

    @Test("hub:food, hub:home, hub:todo and hub:catalog answer 200")
    func demoViews() async throws {
        try await withHub(directory: Self.demoDirectory, extensions: DemoExtensions.make(), environment: Self.environment) {
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
        try await withHub(directory: Self.demoDirectory, extensions: DemoExtensions.make(), environment: Self.environment) {
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
        try await withHub(directory: Self.demoDirectory, extensions: DemoExtensions.make(), environment: Self.environment) {
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
