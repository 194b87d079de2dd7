/// A Server-Sent Event encoded once, in its chunked wire form, to be written as it is to every
/// listener that sends it: a view pushed to many listeners costs one encoding and one buffer,
/// not one per listener (a connection's write takes the shared bytes without copying them
/// while its socket has room).
public final class EncodedServerSentEvent: Sendable {
    /// The event as one HTTP chunk: its size in hex, CRLF, the event's wire form, CRLF.
    let chunk: [UInt8]
    /// Where the event's own bytes start in ``chunk``.
    private let start: Int

    /// Encodes `event` (``ServerSentEvent/encoded``) and frames it as a chunk.
    public init(_ event: ServerSentEvent) {
        let encoded = event.encoded
        let sizeLine = Array(String(encoded.count, radix: 16).utf8) + [0x0D, 0x0A]
        var chunk: [UInt8] = []
        chunk.reserveCapacity(sizeLine.count + encoded.count + 2)
        chunk.append(contentsOf: sizeLine)
        chunk.append(contentsOf: encoded)
        chunk.append(contentsOf: [0x0D, 0x0A])
        self.chunk = chunk
        start = sizeLine.count
    }

    /// Bytes the encoded event holds (its chunk).
    public var byteCount: Int { chunk.count }

    /// The event's wire form without the chunk frame (for a close-delimited HTTP/1.0 stream;
    /// a copy).
    public var bytes: [UInt8] { Array(chunk[start..<(chunk.count - 2)]) }
}
