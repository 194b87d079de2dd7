import Dispatch
@testable import HubHTTP
import HubTestSupport
import Synchronization
import Testing
import Glibc

/// Shutdown and drain (in-flight requests, idle connections, stragglers), and garbage input.
extension ServerTests {
    @Test func shutdownFinishesInFlightWithConnectionClose() async throws {
        // A drain far longer than the 1 s handler: on a loaded machine it still finishes inside it.
        let configuration = testConfiguration { $0.timeouts.drain = .seconds(60) }
        let server = HTTPServer(configuration: configuration, responder: testRouter())
        try server.start()
        let port = server.localPort
        let busy = try LoopbackClient(port: port)
        let idle = try LoopbackClient(port: port)
        try await blocking { try busy.send("GET /sleep/1000 HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await eventually { server.openConnections == 2 })
        try await Task.sleep(for: .milliseconds(50))
        async let response = blocking { try busy.readResponse() }
        await server.shutdown()
        let finished = try await response
        #expect(finished.text == "slept 1000")
        #expect(finished.headers["Connection"] == "close")
        #expect(try await blocking { idle.waitForClose() })
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
        // The drain cuts the connection and the loops stop; the handler finishes later and its
        // response is handed to a stopped loop (run on its fallback queue, dropped). A second
        // server in the same process keeps serving.
        let finished = TerminationFlag()
        var router = testRouter()
        router.add(.get, "/late") { _, _ in
            try? await Task.sleep(for: .milliseconds(600))
            finished.value.store(true, ordering: .relaxed)
            return .text("late")
        }
        let configuration = testConfiguration { $0.timeouts.drain = .milliseconds(100) }
        let server = HTTPServer(configuration: configuration, responder: router)
        try server.start()
        let client = try LoopbackClient(port: server.localPort)
        try await blocking { try client.send("GET /late HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await eventually { server.openConnections == 1 })
        await server.shutdown()
        #expect(server.openConnections == 0)
        #expect(try await blocking { client.waitForClose() })
        #expect(await eventually { finished.value.load(ordering: .relaxed) })
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
        let configuration = testConfiguration { $0.timeouts.drain = .milliseconds(300) }
        let server = HTTPServer(configuration: configuration, responder: testRouter())
        try server.start()
        let client = try LoopbackClient(port: server.localPort)
        try await blocking { try client.send("GET /sleep/60000 HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(await eventually { server.openConnections == 1 })
        try await Task.sleep(for: .milliseconds(50))
        let clock = ContinuousClock()
        let start = clock.now
        await server.shutdown()
        #expect(clock.now - start < .seconds(30))  // the 300 ms drain, not the handler's 60 s
        #expect(server.openConnections == 0)
        #expect(try await blocking { client.waitForClose() })
    }

    @Test func garbageNeverCrashesTheServer() async throws {
        // Short read deadlines: garbage that is not a complete head is closed after 0.3 s.
        try await withServer(testConfiguration(shortTimeouts)) { server in
            var generator = SystemRandomNumberGenerator()
            for round in 0..<20 {
                let client = try LoopbackClient(port: server.localPort, receiveTimeout: 2)
                let bytes = (0..<(50 + round * 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = try? await blocking { try client.send(bytes); return client.waitForClose() }
            }
            let client = try LoopbackClient(port: server.localPort)
            let ok = try await blocking {
                try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                return try client.readResponse()
            }
            #expect(ok.status == 200)
        }
    }
}
