import Dispatch
@testable import HubHTTP
import HubTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The server's read, idle and send deadlines (``shortTimeouts``), and garbage input cut by them.
/// Serialized: each test's short deadlines are what it checks, so they do not share the machine
/// with one another.
@Suite(.serialized) struct ServerDeadlineTests {
    @Test func headerTimeoutIs408() async throws {
        try await withServer(testConfiguration(shortTimeouts)) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (response, closed) = try await blocking {
                try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n")
                return (try client.readResponse(), client.waitForClose())
            }
            #expect(response.status == 408)
            #expect(response.text.contains("header_timeout"))
            #expect(closed)
        }
    }

    @Test func slowBodyIsCutByTotalDeadline() async throws {
        try await withServer(testConfiguration(shortTimeouts)) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (response, sent) = try await blocking { () -> (LoopbackResponse, Int) in
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
                // One byte every 100 ms: each gap is well inside any per-read timeout, the total
                // (0.5 s) is not. The answer comes long before the 99 bytes could all be sent.
                var sent = 0
                while sent < 99 {
                    guard (try? client.send("z")) != nil else { break }
                    sent += 1
                    usleep(100_000)
                    var probe = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                    if poll(&probe, 1, 0) > 0 { break }
                }
                return (try client.readResponse(), sent)
            }
            #expect(response.status == 408)
            #expect(response.text.contains("body_timeout"))
            #expect(sent < 99, "the deadline cut the body before it was complete")
        }
    }

    @Test func headerDeadlineIsTotalNotPerRead() async throws {
        try await withServer(testConfiguration { shortTimeouts(&$0); $0.limits.headerCount = 100 }) { server in
            let client = try LoopbackClient(port: server.localPort)
            let response = try await blocking { () -> LoopbackResponse in
                // A header line every 50 ms: no gap is long, the whole head is.
                for index in 0..<60 {
                    guard (try? client.send(index == 0 ? "GET /hello HTTP/1.1\r\nHost: x\r\n" : "X-\(index): v\r\n")) != nil else { break }
                    usleep(50_000)
                    var probe = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                    if poll(&probe, 1, 0) > 0 { break }
                }
                return try client.readResponse()
            }
            #expect(response.status == 408)
        }
    }

    @Test func slowHandlerIsNotCutByReadDeadlines() async throws {
        try await withServer(testConfiguration(shortTimeouts)) { server in
            let client = try LoopbackClient(port: server.localPort)
            let response = try await blocking {
                try client.send("GET /sleep/900 HTTP/1.1\r\nHost: x\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.text == "slept 900")
        }
    }

    @Test func idleKeepAliveTimeoutCloses() async throws {
        try await withServer(testConfiguration(shortTimeouts)) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (response, closed) = try await blocking {
                try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                return (try client.readResponse(), client.waitForClose())
            }
            #expect(response.status == 200)
            #expect(closed)
            #expect(await eventually { server.openConnections == 0 })
        }
    }

    @Test func sendTimeoutDropsClientThatDoesNotRead() async throws {
        let configuration = testConfiguration { $0.timeouts.send = .milliseconds(300) }
        try await withServer(configuration) { server in
            let client = try LoopbackClient(port: server.localPort)
            client.shrinkReceiveBuffer()
            try await blocking { try client.send("GET /big/16384 HTTP/1.1\r\nHost: x\r\n\r\n") }
            #expect(await eventually { server.openConnections == 0 })
        }
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
