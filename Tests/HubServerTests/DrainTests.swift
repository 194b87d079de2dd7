import Foundation
import HubEngine
import HubModel
@testable import HubServer
import HubTestSupport
import Testing

/// Shutdown drains: in-flight requests finish, then the listener is gone.
@Suite("Drain")
struct DrainTests {
    /// Signals that it started, then finishes only once the test releases it (polled: an
    /// operation never blocks its thread).
    struct HeldOperation: ContentOperation {
        let started: Counter
        let released: Counter
        var name: String { "held" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            started.increment()
            while released.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
            builder.body.update("done") { $0.title = "Done" }
        }
    }

    @Test("an in-flight request finishes during shutdown")
    func inFlightFinishes() async throws {
        var config = TestConfig(server: #"{ "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 60 }, "log": { "level": "error" } }"#)
        config.feature("slow", #"{ "id": "slow", "title": "Slow", "match": { "root": "hub:slow" }, "operations": [ { "kind": "swift", "name": "held" } ] }"#)
        let started = Counter()
        let released = Counter()
        var extensions = SwiftExtensions()
        extensions.registerOperation("held") { _ in HeldOperation(started: started, released: released) }
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try HubApplication.load(directory: directory, extensions: extensions, environment: testEnvironment)
        try app.start()
        let client = HubClient(port: app.port)
        let inFlight = Task { try await client.view("hub:slow") }
        #expect(await eventually { started.count == 1 })
        let shutdown = Task { await app.shutdown() }
        // The operation answers only once the drain has begun, however loaded the machine.
        #expect(await eventually { app.shared.isDraining })
        released.increment()
        let response = try await inFlight.value
        await shutdown.value
        #expect(response.status == 200, "\(response)")
        #expect(try response.json().bodyIDs == ["done"])
    }
}
