#if canImport(Glibc)
import Glibc
#endif
import HubTestSupport
import Testing
@testable import HubHTTP

/// Response heads are written into their event loop's one buffer and copied only when the
/// socket does not take them at once. Pipelined responses written back to back through that
/// buffer arrive whole and in order, each with its own head; a head larger than the buffer is
/// made in memory of its own. (The copy of a head the socket takes in part was checked by
/// running the HubHTTP and HubServer suites with every head sent 7 bytes at a time: see
/// docs/PERFORMANCE.md.)
@Suite struct HeadBufferTests {
    @Test func headsQueuedBehindAFullSocketArriveWholeAndInOrder() async throws {
        let count = 3_000
        let configuration = testConfiguration { $0.limits.maxRequestsPerConnection = count + 1 }
        try await withServer(configuration) { server in
            let client = try LoopbackClient(port: server.localPort)
            var size: Int32 = 64 * 1024
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            // Many small responses while the client does not read: the server writes them back
            // to back from the same buffer until the socket is full.
            let requests = (0..<count).map { "GET /hello HTTP/1.1\r\nHost: x\r\nX-Request-Id: head-\($0)\r\n\r\n" }
            async let sent: Void = blocking { try client.send(requests.joined()) }
            let responses = try await blocking {
                usleep(300_000)  // not reading yet: the server's socket fills
                return try (0..<count).map { _ in try client.readResponse() }
            }
            try await sent
            #expect(responses.count == count)
            for (index, response) in responses.enumerated() where
                response.headers["X-Request-Id"] != "head-\(index)" || response.text != "hello" || response.status != 200
            {
                Issue.record("response \(index): \(response.status) \(response.headers) \(response.text)")
                break
            }
        }
    }

    @Test func aHeadLargerThanTheLoopBufferIsSentWhole() async throws {
        var router = Router()
        let long = String(repeating: "v", count: 6000)
        router.add(.get, "/long-header") { _, _ in HTTPResponse(headers: ["X-Long": long], bytes: Array("ok".utf8)) }
        try await withServer(responder: router) { server in
            let client = try LoopbackClient(port: server.localPort)
            let response = try await blocking {
                try client.send("GET /long-header HTTP/1.1\r\nHost: x\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.headers["X-Long"] == long)
            #expect(response.text == "ok")
        }
    }
}
