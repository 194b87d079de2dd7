import Foundation
import HubEngine
import HubModel
import HubServer
import Synchronization
import HubTestSupport
import Testing

/// Found by Tests/system/robustness/rolling-restart.sh: when a replica drains, its
/// sessions' event streams and their next actions reach another replica at the same moment;
/// the first request rebuilds the session, and an action that found it still loading answered
/// 500 `no_view_model`. An action now waits for the first load under way.
@Suite("Rebuild races")
struct RebuildRaceTests {
    /// A Swift operation that holds its run until the test opens it; counts the runs started.
    struct HeldOperation: ContentOperation {
        let held: Held

        var name: String { "held" }

        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            held.started.increment()
            while !held.isOpen.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            builder.body.update("row") { $0.title = "loaded" }
        }
    }

    final class Held: Sendable {
        let isOpen = Mutex(false)
        let started = Counter()
        let actions = Counter()

        var extensions: SwiftExtensions {
            var extensions = SwiftExtensions()
            extensions.registerOperation("held") { [self] _ in HeldOperation(held: self) }
            let actions = self.actions
            extensions.registerActionFactory("test", ClosureActionFactory(["ok": { _ in actions.increment(); return .performed }]))
            return extensions
        }

        func open() { isOpen.withLock { $0 = true } }
    }

    static var config: TestConfig {
        var config = TestConfig()
        config.feature("held", #"{ "id": "held", "title": "Held", "match": { "uri": "hub:held" }, "operations": [ { "kind": "swift", "name": "held" } ] }"#)
        config["actions.json"] = #"{ "test": { "kind": "swift", "name": "test" } }"#
        return config
    }

    @Test("an action on a session another request is rebuilding waits for the rebuild and is performed")
    func actionDuringRebuild() async throws {
        let first = Held()
        first.open()
        let second = Held()
        try await withHub(Self.config, extensions: first.extensions, transport: .socket) { one, _ in
            try await withHub(Self.config, extensions: second.extensions, transport: .socket) { two, _ in
                let token = try #require(try await one.view("hub:held").header("Hub-Session"))
                let header = [("Hub-Session", token)]
                // On the second "replica": a GET starts the rebuild, held in its operation ...
                let view = Task { try await two.get("/view", headers: header) }
                #expect(await eventually { second.started.count == 1 })
                // ... and an action for the same session arrives meanwhile.
                let action = Task { try await two.action(#"{"action":"test:ok"}"#, headers: header) }
                #expect(try await eventually { (try await two.metric("hub_open_connections") ?? 0) >= 3 })
                second.open()
                let viewResult = try await view.value
                let actionResult = try await action.value
                #expect(viewResult.status == 200, "\(viewResult)")
                #expect(actionResult.status == 200, "\(actionResult)")
                #expect(try actionResult.json()["performed"]?.boolValue == true)
                #expect(try actionResult.json()["view"]?.bodyIDs == ["row"])
                #expect(second.actions.count == 1)
                #expect(second.started.count == 1, "one rebuild, shared by both requests")
            }
        }
    }
}
