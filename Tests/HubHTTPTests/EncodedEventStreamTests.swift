import Testing
@testable import HubHTTP
import HubTestSupport

/// Events encoded ahead (``EncodedServerSentEvent``): one instance written to many streams, as
/// it is, framed as a chunk for HTTP/1.1 and bare for a close-delimited HTTP/1.0 stream.
@Suite struct EncodedEventStreamTests {
    static let event = ServerSentEvent(event: "view", data: "{\"a\":\"line\\nbreak\"}\nsecond line", id: "7")

    @Test func encodedFormIsTheEventsWireFormInOneChunk() {
        let encoded = EncodedServerSentEvent(Self.event)
        #expect(encoded.bytes == Self.event.encoded)
        let size = String(Self.event.encoded.count, radix: 16)
        #expect(encoded.chunk == Array("\(size)\r\n".utf8) + Self.event.encoded + [0x0D, 0x0A])
    }

    @Test func oneEncodedEventReachesEveryStreamAsItIs() async throws {
        let shared = EncodedServerSentEvent(Self.event)
        var router = Router()
        router.add(.get, "/events") { _, _ in
            let (stream, continuation) = AsyncStream<EncodedServerSentEvent>.makeStream()
            continuation.yield(shared)
            continuation.yield(shared)
            continuation.finish()
            return .serverSentEvents(encoded: stream)
        }
        let configuration = testConfiguration { $0.sseHeartbeat = .seconds(3600) }
        try await withServer(configuration, responder: router) { server in
            let port = server.localPort
            let chunked = try await blocking { () -> [[UInt8]] in
                let client = try LoopbackClient(port: port)
                defer { client.close() }
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try client.readResponse(head: true)
                #expect(head.status == 200)
                #expect(head.headers["Content-Type"] == "text/event-stream")
                var chunks: [[UInt8]] = []
                while let chunk = try client.readChunk() { chunks.append(chunk) }
                return chunks
            }
            #expect(chunked == [Self.event.encoded, Self.event.encoded])

            let closeDelimited = try await blocking { () -> [UInt8] in
                let client = try LoopbackClient(port: port)
                defer { client.close() }
                try client.send("GET /events HTTP/1.0\r\nHost: x\r\n\r\n")
                let head = try client.readHead()
                #expect(head.status == 200)
                #expect(head.headers["Transfer-Encoding"] == nil)
                return try client.readToEnd()
            }
            #expect(closeDelimited == Self.event.encoded + Self.event.encoded)
        }
    }
}
