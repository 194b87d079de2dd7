import Dispatch
@testable import HubHTTP
import HubTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Shutdown: in-flight requests finish with `Connection: close`, an idle connection is answered
/// or closed after the drain-idle grace, stragglers are cut at the drain deadline, a response
/// finishing after the loops stopped is dropped. Serialized: every test here stops a server
/// while others of this suite would be starting theirs on freed ports and descriptors.
@Suite(.serialized) struct ServerDrainTests {
    @Test func shutdownFinishesInFlightWithConnectionClose() async throws {
        // The handler answers only once the drain has begun, however loaded the machine.
        let held = HeldHandler()
        let configuration = testConfiguration { $0.timeouts.drain = .seconds(60) }
        let server = HTTPServer(configuration: configuration, responder: held.router())
        try server.start()
        let port = server.localPort
        let busy = try LoopbackClient(port: port)
        let idle = try LoopbackClient(port: port)
        try await blocking { try busy.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await eventually { server.openConnections == 2 && held.entered })
        async let response = blocking { try busy.readResponse() }
        let shutdown = Task { await server.shutdown() }
        #expect(await eventually { !reaches(port: port, token: held.token) }, "the drain began")
        held.release()
        let finished = try await response
        #expect(finished.text == "held")
        #expect(finished.headers["Connection"] == "close")
        #expect(try await blocking { idle.waitForClose() })
        await shutdown.value
        #expect(server.openConnections == 0)
        // No check that the freed port now refuses: another test's server may already hold it.
    }

    @Test func requestOnIdleConnectionDuringDrainIsAnsweredWithClose() async throws {
        // A client that sends on its kept-alive connection just as the shutdown begins gets an
        // answer (the drain-idle grace), not a closed socket.
        let configuration = testConfiguration {
            $0.timeouts.drain = .seconds(20)
            $0.timeouts.drainIdle = .seconds(10)
        }
        var router = testRouter()
        let token = String(UInt64.random(in: 1...UInt64.max))
        router.add(.get, "/token") { _, _ in .text(token) }
        let server = HTTPServer(configuration: configuration, responder: router)
        try server.start()
        let port = server.localPort
        let client = try LoopbackClient(port: port)
        let first = try await blocking {
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            return try client.readResponse()
        }
        #expect(first.status == 200)
        #expect(first.headers["Connection"] == nil)
        let shutdown = Task { await server.shutdown() }
        // The listener closes first: once a new connection no longer reaches this server, the
        // drain has begun. (Refused, or answered by another test's server that took the freed
        // port: the token tells them apart.)
        #expect(await eventually { !reaches(port: port, token: token) })
        let late = try await blocking {
            try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            return try client.readResponse()
        }
        #expect(late.status == 200)
        #expect(late.text == "hello")
        #expect(late.headers["Connection"] == "close")
        #expect(try await blocking { client.waitForClose() })
        await shutdown.value
        #expect(server.openConnections == 0)
    }

    @Test func idleConnectionClosesAfterDrainIdleGrace() async throws {
        let configuration = testConfiguration {
            $0.timeouts.idle = .seconds(60)
            $0.timeouts.drain = .seconds(60)
            $0.timeouts.drainIdle = .milliseconds(200)
        }
        let server = HTTPServer(configuration: configuration, responder: testRouter())
        try server.start()
        let client = try LoopbackClient(port: server.localPort)
        #expect(await eventually { server.openConnections == 1 })
        let clock = ContinuousClock()
        let start = clock.now
        await server.shutdown()
        #expect(clock.now - start < .seconds(30))  // the 200 ms grace, not the 60 s drain
        #expect(try await blocking { client.waitForClose() })
    }

    @Test func responseFinishingAfterShutdownIsDroppedHarmlessly() async throws {
        // The drain cuts the connection and the loops stop; the handler finishes later (released
        // once the shutdown returned) and its response is handed to a stopped loop (run on its
        // fallback queue, dropped). A second server in the same process keeps serving.
        let held = HeldHandler()
        defer { held.release() }
        let configuration = testConfiguration { $0.timeouts.drain = .milliseconds(100) }
        let server = HTTPServer(configuration: configuration, responder: held.router())
        try server.start()
        let client = try LoopbackClient(port: server.localPort)
        try await blocking { try client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await eventually { server.openConnections == 1 && held.entered })
        await server.shutdown()
        #expect(server.openConnections == 0)
        #expect(try await blocking { client.waitForClose() })
        #expect(!held.finished, "the handler was still running when the shutdown returned")
        held.release()
        #expect(await eventually { held.finished })
        // What a crash on the stopped loop would need to happen (not a condition of the test).
        try await Task.sleep(for: .milliseconds(100))
        try await withServer { other in
            let response = try await blocking {
                let again = try LoopbackClient(port: other.localPort)
                try again.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                return try again.readResponse()
            }
            #expect(response.text == "hello")
        }
    }

    @Test func shutdownClosesStragglersAfterDrain() async throws {
        let held = HeldHandler()
        defer { held.release() }
        let configuration = testConfiguration { $0.timeouts.drain = .milliseconds(300) }
        let server = HTTPServer(configuration: configuration, responder: held.router())
        try server.start()
        let client = try LoopbackClient(port: server.localPort)
        try await blocking { try client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await eventually { server.openConnections == 1 && held.entered })
        let clock = ContinuousClock()
        let start = clock.now
        await server.shutdown()
        #expect(clock.now - start < .seconds(30))  // the 300 ms drain, not a handler that never answers
        #expect(server.openConnections == 0)
        #expect(try await blocking { client.waitForClose() })
    }
}

/// A handler the test holds: `/held` marks that it entered, then answers "held" only once the
/// test releases it (polled: a handler never blocks its loop); `/token` answers this server's
/// token (``reaches(port:token:)``). The rest is ``testRouter()``.
final class HeldHandler: Sendable {
    let token = String(UInt64.random(in: 1...UInt64.max))
    private let enteredFlag = Atomic<Bool>(false)
    private let releasedFlag = Atomic<Bool>(false)
    private let finishedFlag = Atomic<Bool>(false)

    /// Whether a request reached the handler.
    var entered: Bool { enteredFlag.load(ordering: .acquiring) }
    /// Whether the handler returned.
    var finished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// Lets the handler answer.
    func release() { releasedFlag.store(true, ordering: .releasing) }

    func router() -> Router {
        var router = testRouter()
        router.add(.get, "/held") { [self] _, _ in
            enteredFlag.store(true, ordering: .releasing)
            // A cut connection may cancel this task: it still waits (yielding) to finish late.
            while !releasedFlag.load(ordering: .acquiring) {
                if Task.isCancelled { await Task.yield() } else { try? await Task.sleep(for: .milliseconds(5)) }
            }
            finishedFlag.store(true, ordering: .releasing)
            return .text("held")
        }
        router.add(.get, "/token") { [token] _, _ in .text(token) }
        return router
    }
}
