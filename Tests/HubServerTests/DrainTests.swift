import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Shutdown drains: in-flight requests finish, then the listener is gone.
@Suite("Drain")
struct DrainTests {
    /// Signals that it started, then takes a while.
    struct Slowpoke: ContentOperation {
        let started: Counter
        var name: String { "slowpoke" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            started.increment()
            try await Task.sleep(for: .milliseconds(600))
            builder.body.update("done") { $0.title = "Done" }
        }
    }

    @Test("an in-flight request finishes during shutdown")
    func inFlightFinishes() async throws {
        var config = TestConfig(server: #"{ "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 60 }, "log": { "level": "error" } }"#)
        config.feature("slow", #"{ "id": "slow", "title": "Slow", "match": { "root": "hub:slow" }, "operations": [ { "kind": "swift", "name": "slowpoke" } ] }"#)
        let started = Counter()
        var extensions = SwiftExtensions()
        extensions.registerOperation("slowpoke") { _ in Slowpoke(started: started) }
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try HubApplication.load(directory: directory, extensions: extensions, environment: [:])
        try app.start()
        let client = HubClient(port: app.port)
        let inFlight = Task { try await client.view("hub:slow") }
        let began = await eventually { started.count == 1 }
        #expect(began)
        await app.shutdown()
        let response = try await inFlight.value
        #expect(response.status == 200, "\(response)")
        #expect(try response.json().bodyIDs == ["done"])
    }
}
