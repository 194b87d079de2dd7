import Synchronization
import Testing
@testable import HubHTTP

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
        var router = Router()
        router.add(.get, "/events") { _, _ in
            let (stream, continuation) = AsyncStream<ServerSentEvent>.makeStream()
            Task {
                continuation.yield(ServerSentEvent(event: "view", data: "{\"a\":1}", id: "1"))
                try? await Task.sleep(for: .milliseconds(300))
                continuation.yield(ServerSentEvent(data: "second"))
                continuation.finish()
            }
            return .serverSentEvents(stream)
        }
        let configuration = testConfiguration { $0.sseHeartbeat = .milliseconds(100) }
        try await withServer(configuration, responder: router) { server in
            let client = try TestClient(port: server.localPort)
            let (head, chunks, after) = try await blocking {
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try client.readResponse(head: true)
                var chunks: [String] = []
                while let chunk = try client.readChunk() { chunks.append(String(decoding: chunk, as: UTF8.self)) }
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return (head, chunks, try client.readResponse())
            }
            #expect(head.status == 200)
            #expect(head.headers["Content-Type"] == "text/event-stream")
            #expect(head.headers["Transfer-Encoding"] == "chunked")
            #expect(chunks.first == "event: view\nid: 1\ndata: {\"a\":1}\n\n")
            #expect(chunks.last == "data: second\n\n")
            #expect(chunks.contains(": heartbeat\n\n"))
            #expect(after.text.contains("data: second"))
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
            let client = try TestClient(port: server.localPort)
            client.shrinkReceiveBuffer()
            try await blocking { try client.send("GET /flood HTTP/1.1\r\nHost: x\r\n\r\n") }
            #expect(await eventually(within: 15) { server.openConnections == 0 })
            #expect(await eventually { terminated.value.load(ordering: .relaxed) })
            #expect(produced.value.load(ordering: .relaxed) < 20_000)
        }
    }
}
