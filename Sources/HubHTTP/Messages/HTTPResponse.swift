/// A response: status, headers and a body that is either bytes or a stream.
///
/// The server frames every response: `Content-Length` for bytes, `Transfer-Encoding: chunked`
/// for streams (HTTP/1.0 peers get a close-delimited stream). Framing headers set here are
/// replaced by the server's.
public struct HTTPResponse: Sendable {
    /// The content of a response.
    public enum Body: Sendable {
        /// Fixed bytes, sent with `Content-Length`.
        case bytes([UInt8])
        /// Fixed bytes prepared ahead, with their strong ETag and cached gzip:
        /// ``RepresentationMiddleware`` answers 304, gzip or identity from it (the transport
        /// sends its bytes as they are).
        case representation(Representation)
        /// Fixed bytes shared by many responses, sent with `Content-Length`; the transport may
        /// send them from a file of their own (``SharedBytes``). ``RepresentationMiddleware``
        /// answers a representation with its identity or gzip bytes this way.
        case shared(SharedBytes)
        /// A stream of chunks (Server-Sent Events or raw bytes), sent chunked; see ``HTTPBodyStream``.
        ///
        /// Boxed (`indirect`): a stream holds `AsyncStream`s, whose layout the resilient
        /// concurrency library keeps to itself. Unboxed, that made this enum's layout (and every
        /// response's) known only at run time, and each copy of a response went through the
        /// runtime's generic enum witnesses; boxed, every case is one reference.
        indirect case stream(HTTPBodyStream)

        /// The fixed bytes (a representation's identity bytes), or nil for a stream.
        public var bytes: [UInt8]? {
            switch self {
            case .bytes(let bytes): bytes
            case .representation(let representation): representation.bytes
            case .shared(let shared): shared.bytes
            case .stream: nil
            }
        }
    }

    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Body
    /// The problem `code` when this is an RFC 9457 problem response (for logs; never sent).
    public var problemCode: String?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with byte content.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], bytes: [UInt8]) {
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }

    /// A JSON response (`Content-Type: application/json`).
    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes(bytes))
    }

    /// A plain text response (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: .bytes(Array(text.utf8)))
    }

    /// A `text/event-stream` response that sends `events` as Server-Sent Events, with heartbeat
    /// comments from the server while the stream is quiet.
    public static func serverSentEvents(_ events: AsyncStream<ServerSentEvent>, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
            body: .stream(.events(events))
        )
    }

    /// A `text/event-stream` response that sends events encoded ahead, each as it is (one
    /// encoding shared by every stream that sends it), with heartbeat comments while quiet.
    public static func serverSentEvents(encoded events: AsyncStream<EncodedServerSentEvent>, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
            body: .stream(.encodedEvents(events))
        )
    }

    /// An RFC 9457 problem response (`application/problem+json`), with `Cache-Control: no-store`:
    /// a cache keeps no error (a 404 or 405 is otherwise cacheable by heuristics, RFC 9110
    /// section 15.1, and what it says may change with the next request or config reload).
    public static func problem(_ problem: ProblemDetails) -> HTTPResponse {
        var response = HTTPResponse(
            status: HTTPStatus(code: problem.status),
            headers: ["Content-Type": "application/problem+json", "Cache-Control": "no-store"],
            body: .bytes(problem.jsonBytes)
        )
        response.problemCode = problem.code
        return response
    }
}
