import Foundation
import HubServer
import HubTestSupport
import Testing

/// SIGTERM's drain: event streams end at once instead of holding the drain to its deadline,
/// and `timeouts.drainDelaySeconds` keeps serving with `/ready` at 503.
@Suite("Hardening: drain")
struct DrainHardeningTests {
    @Test("an open event stream ends cleanly when the drain starts, well before drainSeconds")
    func drainEndsEventStreams() async throws {
        let server = """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 120 }, "log": { "level": "error" } }
            """
        let directory = try Hardening.config(server: server).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try HubApplication.load(directory: directory, extensions: Hardening.extensions(), environment: testEnvironment)
        try app.start()
        let client = HubClient(port: app.port)
        let opened = try await client.view("hub:static")
        let session = try #require(opened.header("Hub-Session"))
        let stream = try await client.events(session: session)
        defer { stream.close() }
        #expect(try await stream.next().event == "view")
        let shutdown = Task { await app.shutdown() }
        // The server ends the stream with the last chunk: "event stream ended", not a read
        // timeout (the client's is 15 s, far below the 120 s drain deadline).
        do {
            _ = try await stream.next()
            Issue.record("the stream should have ended")
        } catch let error as HarnessError {
            #expect(error.description == "event stream ended")
        }
        await shutdown.value
    }

    @Test("during drainDelaySeconds /ready answers 503 and the server still serves new connections")
    func drainDelayKeepsServing() async throws {
        let server = """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 5, "drainDelaySeconds": 8 },
              "log": { "level": "error" } }
            """
        let directory = try Hardening.config(server: server).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try HubApplication.load(directory: directory, extensions: Hardening.extensions(), environment: testEnvironment)
        try app.start()
        let client = HubClient(port: app.port)
        #expect(try await client.get("/ready").status == 200)
        let shutdown = Task { await app.shutdown() }
        #expect(try await eventually { try await client.get("/ready").status == 503 })
        #expect(try await client.view("hub:static").status == 200)
        await shutdown.value
    }
}
