import Synchronization
import Testing
@testable import HubHTTP
import HubTestSupport

/// Records whether a stream was terminated (the server cancelled it).
final class TerminationFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// Counts produced events across tasks.
final class ProducedCounter: Sendable {
    let value = Atomic<Int>(0)
}

@Suite(.serialized) struct StreamingTests {
    @Test func serverSentEventsWithHeartbeats() async throws {
        // The second event waits until the client has read a heartbeat (not for a fixed time
        // a loaded machine could outlast), so a heartbeat always falls between the two events.
        let sawHeartbeat = TerminationFlag()
        var router = Router()
        router.add(.get, "/events") { _, _ in
            let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream()
            Task {
                continuation.yield(ServerSentEvent(event: "view", data: "{\"a\":1}", id: "1"))
                let deadline = ContinuousClock.now + .seconds(60)
                while !sawHeartbeat.value.load(ordering: .relaxed), ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                continuation.yield(ServerSentEvent(data: "second"))
                continuation.finish()
            }
            return .serverSentEvents(stream)
        }
        let configuration = testConfiguration { $0.sseHeartbeat = .milliseconds(100) }
        try await withServer(configuration, responder: router) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (head, chunks, after) = try await blocking {
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try client.readResponse(head: true)
                var chunks: [String] = []
                while let chunk = try client.readChunk() {
                    chunks.append(String(decoding: chunk, as: UTF8.self))
                    if chunks.last == ": heartbeat\n\n" { sawHeartbeat.value.store(true, ordering: .relaxed) }
                }
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return (head, chunks, try client.readResponse())
            }
            #expect(head.status == 200)
            #expect(head.headers["Content-Type"] == "text/event-stream")
            #expect(head.headers["Transfer-Encoding"] == "chunked")
            #expect(chunks.filter { $0 != ": heartbeat\n\n" } == ["event: view\nid: 1\ndata: {\"a\":1}\n\n", "data: second\n\n"])
            #expect(chunks.contains(": heartbeat\n\n"))
            #expect(after.text.contains("data: second"))
        }
    }

    @Test func listenerThatDisconnectsEndsTheStreamBeforeAnyHeartbeat() async throws {
        // The server watches a streaming connection for the peer's FIN: a listener that leaves
        // ends its stream at once, not at the next heartbeat (an hour away here).
        let terminated = TerminationFlag()
        var router = Router()
        router.add(.get, "/events") { _, _ in
            let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream()
            continuation.onTermination = { _ in terminated.value.store(true, ordering: .relaxed) }
            continuation.yield(ServerSentEvent(data: "hello"))
            return .serverSentEvents(stream)
        }
        let configuration = testConfiguration { $0.sseHeartbeat = .seconds(3600) }
        try await withServer(configuration, responder: router) { server in
            let client = try LoopbackClient(port: server.localPort)
            let first = try await blocking {
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try client.readResponse(head: true)
                return try client.readChunk()
            }
            #expect(first.map { String(decoding: $0, as: UTF8.self) } == "data: hello\n\n")
            let endedEarly = terminated.value.load(ordering: .relaxed)
            #expect(!endedEarly)
            client.disconnect()
            #expect(await eventually { terminated.value.load(ordering: .relaxed) })
            #expect(await eventually { server.openConnections == 0 })
        }
    }

    @Test func clientThatNeverReadsIsDroppedAndStreamCancelled() async throws {
        let terminated = TerminationFlag()
        let produced = ProducedCounter()
        var router = Router()
        router.add(.get, "/flood") { _, _ in
            let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream(bufferingPolicy: .bufferingNewest(8))
            continuation.onTermination = { _ in terminated.value.store(true, ordering: .relaxed) }
            let payload = String(repeating: "x", count: 8 * 1024)
            Task {
                for _ in 0..<20_000 {
                    if case .terminated = continuation.yield(ServerSentEvent(data: payload)) { return }
                    produced.value.add(1, ordering: .relaxed)
                    try? await Task.sleep(for: .milliseconds(1))
                }
                continuation.finish()
            }
            return .serverSentEvents(stream)
        }
        let configuration = testConfiguration {
            $0.sseBufferBytes = 64 * 1024
            $0.timeouts.send = .seconds(30)
        }
        try await withServer(configuration, responder: router) { server in
            let client = try LoopbackClient(port: server.localPort)
            client.shrinkReceiveBuffer()
            try await blocking { try client.send("GET /flood HTTP/1.1\r\nHost: x\r\n\r\n") }
            #expect(await eventually { server.openConnections == 0 })
            #expect(await eventually { terminated.value.load(ordering: .relaxed) })
            #expect(produced.value.load(ordering: .relaxed) < 20_000)
        }
    }
}

@Suite(.serialized) struct StreamingFramingTests {
    func router() -> Router {
        var router = Router()
        router.add(.get, "/chunks") { _, _ in
            let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
            continuation.yield(Array("one,".utf8))
            continuation.yield([])
            continuation.yield(Array("two".utf8))
            continuation.finish()
            return HTTPResponse(headers: ["Content-Type": "text/plain"], body: .stream(.chunks(stream)))
        }
        router.add(.get, "/events") { _, _ in
            let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream()
            continuation.yield(ServerSentEvent(data: "only"))
            continuation.finish()
            return .serverSentEvents(stream)
        }
        return router
    }

    @Test func rawChunksAreChunkedForHTTP11() async throws {
        try await withServer(responder: router()) { server in
            let client = try LoopbackClient(port: server.localPort)
            let response = try await blocking {
                try client.send("GET /chunks HTTP/1.1\r\nHost: x\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.headers["Transfer-Encoding"] == "chunked")
            #expect(response.headers["Content-Length"] == nil)
            #expect(response.text == "one,two")
        }
    }

    @Test func http10StreamIsCloseDelimited() async throws {
        try await withServer(responder: router()) { server in
            let client = try LoopbackClient(port: server.localPort)
            let response = try await blocking {
                try client.send("GET /events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.headers["Transfer-Encoding"] == nil)
            #expect(response.headers["Connection"] == "close")
            #expect(response.text == "data: only\n\n")
        }
    }

    @Test func gzipOverTheWire() async throws {
        var router = Router()
        let big = Array(String(repeating: "{\"hub\":true}", count: 500).utf8)
        router.add(.get, "/big") { _, _ in .json(big) }
        try await withServer(responder: router.wrapped(in: [RepresentationMiddleware(minBytes: 1024)])) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (gzipped, plain) = try await blocking {
                try client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br, gzip;q=0.8\r\n\r\n")
                let gzipped = try client.readResponse()
                try client.send("GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0\r\n\r\n")
                return (gzipped, try client.readResponse())
            }
            #expect(gzipped.headers["Content-Encoding"] == "gzip")
            #expect(gzipped.headers["Vary"] == "Accept-Encoding")
            #expect(Int(gzipped.headers["Content-Length"] ?? "") == gzipped.body.count)
            #expect(Gzip.decompress(gzipped.body) == big)
            #expect(plain.headers["Content-Encoding"] == nil)
            #expect(plain.headers["Vary"] == "Accept-Encoding")
            #expect(plain.body == big)
        }
    }

    @Test func oversizedChunkedBodyIs413() async throws {
        try await withServer { server in
            let client = try LoopbackClient(port: server.localPort)
            let (response, closed) = try await blocking {
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + String(repeating: "a", count: 1024) + "\r\n")
                return (try client.readResponse(), client.waitForClose())
            }
            #expect(response.status == 413)
            #expect(closed)
        }
    }

    @Test func noContinueWhenContentTooLarge() async throws {
        try await withServer { server in
            let client = try LoopbackClient(port: server.localPort)
            let response = try await blocking {
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 999999\r\n\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 413)
        }
    }

    @Test func startTwiceThrowsAndBindErrorsNameTheCall() async throws {
        try await withServer { server in
            #expect(throws: SocketError.self) { try server.start() }
            let clash = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: server.localPort), responder: testRouter())
            do {
                try clash.start()
                Issue.record("second bind succeeded")
                await clash.shutdown()
            } catch let error as SocketError {
                #expect(error.call == "bind")
                #expect(error.errno != 0)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }
}
