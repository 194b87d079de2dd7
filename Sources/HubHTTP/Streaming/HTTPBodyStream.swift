/// The body of a streamed response.
///
/// Two sources are supported: Server-Sent Events (encoded by the server, with heartbeat comments
/// every `sseHeartbeat` while quiet) and raw byte chunks. Each element is written as one HTTP chunk.
///
/// Back-pressure: the server takes elements as they come and queues them for the socket. When a
/// client stops reading and more than `sseBufferBytes` are waiting, the connection is dropped and
/// the stream cancelled (its `onTermination` runs). The producer's own `AsyncStream` buffering
/// policy (for example `.bufferingNewest(16)`) bounds what waits before the server takes it.
public struct HTTPBodyStream: Sendable {
    enum Source: Sendable {
        case events(AsyncStream<ServerSentEvent>)
        case chunks(AsyncStream<[UInt8]>)
    }

    let source: Source

    /// A stream of Server-Sent Events; the server adds heartbeats.
    public static func events(_ events: AsyncStream<ServerSentEvent>) -> HTTPBodyStream {
        HTTPBodyStream(source: .events(events))
    }

    /// A stream of raw byte chunks (empty chunks are skipped); no heartbeats.
    public static func chunks(_ chunks: AsyncStream<[UInt8]>) -> HTTPBodyStream {
        HTTPBodyStream(source: .chunks(chunks))
    }

    /// Whether the server sends heartbeat comments while quiet.
    var wantsHeartbeat: Bool {
        if case .events = source { return true }
        return false
    }

    /// Iterates the elements as wire bytes until the stream ends or the task is cancelled.
    func forEachChunk(_ body: ([UInt8]) async -> Bool) async {
        switch source {
        case .events(let events):
            for await event in events {
                if !(await body(event.encoded)) { return }
            }
        case .chunks(let chunks):
            for await chunk in chunks where !chunk.isEmpty {
                if !(await body(chunk)) { return }
            }
        }
    }
}
