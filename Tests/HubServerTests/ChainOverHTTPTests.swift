import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// The chain semantics as seen over HTTP: snapshots, partial reschedules, full reloads.
@Suite("Chain over HTTP")
struct ChainOverHTTPTests {
    /// Adds a component whose id is unique per run (`<prefix>-<run>`), and one only when online.
    struct RunMarker: ContentOperation {
        let prefix: String
        let counter: Counter
        var name: String { prefix }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            let run = counter.increment()
            builder.body.update("\(prefix)-\(run)") { $0.title = "\(prefix) run \(run)" }
            if context.connectivity == .online {
                builder.body.update("\(prefix)-online") { $0.title = "online" }
            }
        }
    }

    static func config() -> TestConfig {
        var config = TestConfig()
        config["actions.json"] = #"{ "chain": { "kind": "swift", "name": "chain" } }"#
        config.feature("chain", """
            { "id": "chain", "title": "Chain", "match": { "root": "hub:chain" }, "reload": "never",
              "operations": [
                { "kind": "swift", "name": "first" },
                { "kind": "swift", "name": "second", "rescheduleOn": ["chain:again"] },
                { "kind": "static", "json": { "body": [ { "id": "last" } ] } } ] }
            """)
        config.feature("reloading", """
            { "id": "reloading", "title": "Reloading", "match": { "root": "hub:reloading" }, "reload": "always",
              "operations": [ { "kind": "swift", "name": "third" } ] }
            """)
        return config
    }

    struct Counters {
        let first = Counter(), second = Counter(), third = Counter()
        var extensions: SwiftExtensions {
            var extensions = SwiftExtensions()
            let (first, second, third) = (self.first, self.second, self.third)
            extensions.registerOperation("first") { _ in RunMarker(prefix: "first", counter: first) }
            extensions.registerOperation("second") { _ in RunMarker(prefix: "second", counter: second) }
            extensions.registerOperation("third") { _ in RunMarker(prefix: "third", counter: third) }
            extensions.registerActionFactory("chain", ClosureActionFactory(["again": { _ in .performed }]))
            return extensions
        }
    }

    @Test("rescheduling operation i re-runs i..n-1 from the snapshot before i")
    func partialReschedule() async throws {
        let counters = Counters()
        try await withHub(Self.config(), extensions: counters.extensions) { client, _ in
            let opened = try await client.view("hub:chain")
            let session = try #require(opened.header("Hub-Session"))
            #expect(try opened.json().bodyIDs == ["first-1", "first-online", "second-1", "second-online", "last"])
            let response = try await client.action(#"{"session":"\#(session)","action":"chain:again"}"#)
            #expect(response.status == 200, "\(response)")
            #expect(counters.first.count == 1, "operation 0 is not re-run")
            #expect(counters.second.count == 2)
            #expect(
                try response.json()["view"]?.bodyIDs == ["first-1", "first-online", "second-2", "second-online", "last"],
                "operation 1 starts again from the snapshot after operation 0")
        }
    }

    @Test("a full reload starts from a blank builder")
    func fullReloadIsBlank() async throws {
        let counters = Counters()
        try await withHub(Self.config(), extensions: counters.extensions) { client, _ in
            let opened = try await client.view("hub:reloading")
            let session = try #require(opened.header("Hub-Session"))
            let reloaded = try await client.session(session)
            #expect(try reloaded.json().bodyIDs == ["third-2", "third-online"])
        }
    }

    @Test("a Hub-Connectivity change reloads from a blank state")
    func connectivityBlank() async throws {
        let counters = Counters()
        try await withHub(Self.config(), extensions: counters.extensions) { client, _ in
            let opened = try await client.view("hub:chain")
            let session = try #require(opened.header("Hub-Session"))
            let offline = try await client.session(session, headers: [("Hub-Connectivity", "offline")])
            #expect(offline.status == 200)
            #expect(try offline.json().bodyIDs == ["first-2", "second-2", "last"])
        }
    }
}
