/// The body of a streamed response.
///
/// Three sources are supported: Server-Sent Events (encoded by the server, with heartbeat comments
/// every `sseHeartbeat` while quiet), events encoded ahead (``EncodedServerSentEvent``: one
/// encoding shared by every stream that sends it, heartbeats as well) and raw byte chunks. Each
/// element is written as one HTTP chunk.
///
/// Back-pressure: the server takes elements as they come and queues them for the socket. When a
/// client stops reading and more than `sseBufferBytes` are waiting, the connection is dropped and
/// the stream cancelled (its `onTermination` runs). The producer's own `AsyncStream` buffering
/// policy (for example `.bufferingNewest(16)`) bounds what waits before the server takes it.
public struct HTTPBodyStream: Sendable {
    enum Source: Sendable {
        case events(AsyncStream<ServerSentEvent>)
        case encodedEvents(AsyncStream<EncodedServerSentEvent>)
        case chunks(AsyncStream<[UInt8]>)
    }

    /// One element as the connection writes it.
    enum Piece {
        /// Bytes the connection frames as a chunk.
        case bytes([UInt8])
        /// An event already framed, shared with other streams.
        case encoded(EncodedServerSentEvent)
    }

    let source: Source

    /// A stream of Server-Sent Events; the server adds heartbeats.
    public static func events(_ events: AsyncStream<ServerSentEvent>) -> HTTPBodyStream {
        HTTPBodyStream(source: .events(events))
    }

    /// A stream of events encoded ahead, each written as it is (shared by every stream that
    /// sends the same instance); the server adds heartbeats.
    public static func encodedEvents(_ events: AsyncStream<EncodedServerSentEvent>) -> HTTPBodyStream {
        HTTPBodyStream(source: .encodedEvents(events))
    }

    /// A stream of raw byte chunks (empty chunks are skipped); no heartbeats.
    public static func chunks(_ chunks: AsyncStream<[UInt8]>) -> HTTPBodyStream {
        HTTPBodyStream(source: .chunks(chunks))
    }

    /// Whether the server sends heartbeat comments while quiet.
    var wantsHeartbeat: Bool {
        switch source {
        case .events, .encodedEvents: true
        case .chunks: false
        }
    }

    /// Iterates the elements as pieces to write until the stream ends, `body` answers false, or
    /// the task is cancelled. Each source has a loop of its own (a small async frame per
    /// stream: one is held by every open stream).
    func forEachPiece(_ body: (Piece) async -> Bool) async {
        switch source {
        case .events(let events): await Self.forEach(events, body)
        case .encodedEvents(let events): await Self.forEach(events, body)
        case .chunks(let chunks): await Self.forEach(chunks, body)
        }
    }

    private static func forEach(_ events: AsyncStream<ServerSentEvent>, _ body: (Piece) async -> Bool) async {
        for await event in events {
            if !(await body(.bytes(event.encoded))) { return }
        }
    }

    private static func forEach(_ events: AsyncStream<EncodedServerSentEvent>, _ body: (Piece) async -> Bool) async {
        for await event in events {
            if !(await body(.encoded(event))) { return }
        }
    }

    private static func forEach(_ chunks: AsyncStream<[UInt8]>, _ body: (Piece) async -> Bool) async {
        for await chunk in chunks where !chunk.isEmpty {
            if !(await body(.bytes(chunk))) { return }
        }
    }
}
