#if canImport(Glibc)
import Glibc
#endif

/// The last request a ``Connection`` parsed, with the bytes it was parsed from: a client that
/// sends the same bytes again on its keep-alive connection (a poll with the same header fields,
/// a health check, a scraper) gets that request back without a parse.
///
/// Sound because a parsed request is a function of its bytes and its connection alone (the
/// parser is a state machine over the bytes; the peer's address is the connection's): the
/// request kept is what parsing the same bytes again would make, every field, the target and
/// the framing. It is an immutable value, so handing it out again shares nothing mutable. A
/// read that changes only field values the parser merely checks (a new `traceparent` each
/// request, of the same length) gets a copy of the kept request with those values, checked as
/// the parser checks them: again what a parse would make.
///
/// Kept only for a request read whole by one `read` into an empty parser, with nothing after
/// it and no body, of at most ``maximumBytes``: an idle connection keeps at most that (and the
/// request's own copy of its head). Any other read (another length, field, name or target, a
/// second request behind the first) is parsed as usual, and then kept in turn.
/// Loop-confined, like the connection that owns it.
struct RepeatedRequest {
    /// Longest request kept.
    static let maximumBytes = 2048

    private var bytes: [UInt8] = []
    private var request: HTTPRequest?

    /// The request kept, when `received` is exactly the bytes it was parsed from; or, when
    /// `received` differs from them only in the values of fields that frame nothing (a new
    /// `traceparent`), the kept request with those values, as a parse would make it
    /// (``ReceivedFields/changingValues(from:to:)``). Nil for any other read.
    func request(repeatedBy received: UnsafeRawBufferPointer) -> HTTPRequest? {
        guard let request, received.count == bytes.count, let base = received.baseAddress else { return nil }
        return bytes.withUnsafeBytes { kept in
            if memcmp(kept.baseAddress!, base, received.count) == 0 { return request }
            guard let head = request.headers.received?.changingValues(from: kept, to: received) else { return nil }
            return request.receiving(head)
        }
    }

    /// Keeps `request`, parsed from exactly `received` (one read into an empty parser, nothing
    /// left over), in place of the one kept, when it has no body and `received` is at most
    /// ``maximumBytes``; otherwise keeps the one kept (it still answers its own bytes).
    mutating func keep(_ request: HTTPRequest, parsedFrom received: UnsafeRawBufferPointer) {
        guard received.count <= Self.maximumBytes, let base = received.baseAddress, request.body.isEmpty else { return }
        // Copied with one memcpy into storage reused while the length stays the same.
        if bytes.count != received.count { bytes = [UInt8](repeating: 0, count: received.count) }
        bytes.withUnsafeMutableBytes { kept in _ = memcpy(kept.baseAddress!, base, received.count) }
        self.request = request
    }
}
