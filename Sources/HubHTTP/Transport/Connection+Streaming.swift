import HubPrimitives

/// Streamed responses (Server-Sent Events, raw chunks): chunk framing, heartbeats and the
/// back-pressure rule, on the connection's loop thread like everything else of ``Connection``.
extension Connection {
    // MARK: - Streaming

    func startStream(_ stream: HTTPBodyStream, head: [UInt8], chunked: Bool, keepAlive: Bool) {
        streaming = true
        chunkedStream = chunked
        streamGeneration += 1
        write(head, [], then: .none)
        guard !closed else { return }
        if peerShutdown {
            // The listener left before the stream began (its FIN arrived with the request).
            close()
            return
        }
        let interval = configuration.sseHeartbeat.nanoseconds
        if stream.wantsHeartbeat, interval > 0, interval < Int(Int32.max) * 1_000_000_000 {
            scheduleHeartbeat(generation: streamGeneration, every: UInt64(interval))
        }
        streamTask = Task(executorPreference: loop) { [self] in
            await stream.forEachPiece { piece in await deliver(piece) }
            onLoop { [self] in streamFinished(keepAlive: keepAlive) }
        }
    }

    func scheduleHeartbeat(generation: Int, every interval: UInt64) {
        loop.schedule(at: MonotonicClock.now &+ interval) { [self] in
            guard streaming, !closed, generation == streamGeneration else { return }
            guard enqueueStreamPiece(.bytes(ServerSentEvent.heartbeat)) else { return }
            scheduleHeartbeat(generation: generation, every: interval)
        }
    }

    func deliver(_ piece: HTTPBodyStream.Piece) async -> Bool {
        if loop.inLoop { return enqueueStreamPiece(piece) }
        return await withCheckedContinuation { continuation in
            loop.execute { [self] in continuation.resume(returning: enqueueStreamPiece(piece)) }
        }
    }

    /// Queues stream bytes; drops the client when more than `sseBufferBytes` are already
    /// waiting (it stopped reading). Only what is queued counts: one event larger than the
    /// buffer (a view over 1 MiB) still goes out to a client that keeps up. An encoded event
    /// is written from its shared bytes (copied only into what the socket did not take).
    func enqueueStreamPiece(_ piece: HTTPBodyStream.Piece) -> Bool {
        assertInLoop()
        guard streaming, !closed else { return false }
        if out.count - outOffset > configuration.sseBufferBytes {
            close()
            return false
        }
        switch piece {
        case .bytes(let bytes):
            write(chunkedStream ? ResponseEncoder.chunk(bytes) : bytes, [], then: .none)
        case .encoded(let event):
            write(chunkedStream ? event.chunk : event.bytes, [], then: .none)
        }
        return !closed
    }

    func streamFinished(keepAlive: Bool) {
        assertInLoop()
        guard streaming, !closed else { return }
        streamGeneration += 1
        streamTask = nil
        if chunkedStream {
            write(ResponseEncoder.lastChunk, [], then: .responseFinished(keepAlive: keepAlive))
        } else {
            write([], [], then: .responseFinished(keepAlive: false))
        }
    }
}
