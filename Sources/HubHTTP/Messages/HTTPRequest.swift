/// A parsed HTTP/1.x request with its whole body.
///
/// A value type whose fields live in one shared, immutable box: a request passes through the
/// connection, its task, the middleware and the endpoint, and each copy costs one reference
/// count instead of one per field. Setting a field makes a new box (requests are seldom changed).
public struct HTTPRequest: Sendable {
    private struct Fields: Sendable {
        var method: HTTPMethod
        var target: Target
        var path: String
        var query: [(name: String, value: String)]
        var version: HTTPVersion
        var headers: HTTPHeaders
        var body: [UInt8]
        var remoteAddress: String?
    }

    /// The target as received: the parser keeps its bytes with the header fields' (one
    /// allocation for the head), and the text is made only when read (the router reads the
    /// decoded path and query; nothing on the way to a response reads this).
    private enum Target: Sendable {
        case text(String)
        case received(ReceivedFields)

        var text: String {
            switch self {
            case .text(let text): text
            case .received(let head): head.target
            }
        }
    }

    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// The box. Its fields are read with `_read` (yielded in place): a lookup such as
    /// `request.headers["Accept"]` borrows the box's field instead of copying it out (a reference
    /// count per read).
    private var storage: Storage

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }

    /// The request method.
    public var method: HTTPMethod {
        _read { yield storage.fields.method }
        set { update { $0.method = newValue } }
    }
    /// The request target exactly as sent on the request line (origin-, absolute- or asterisk-form).
    public var target: String {
        get { storage.fields.target.text }
        set { update { $0.target = .text(newValue) } }
    }
    /// The target's path, percent-decoded (`/` for an absolute-form target without a path).
    public var path: String {
        _read { yield storage.fields.path }
        set { update { $0.path = newValue } }
    }
    /// The query parameters in order, percent-decoded; `+` stays a literal plus (RFC 3986).
    public var query: [(name: String, value: String)] {
        _read { yield storage.fields.query }
        set { update { $0.query = newValue } }
    }
    /// The protocol version from the request line.
    public var version: HTTPVersion {
        _read { yield storage.fields.version }
        set { update { $0.version = newValue } }
    }
    /// The header fields in the order received.
    public var headers: HTTPHeaders {
        _read { yield storage.fields.headers }
        set { update { $0.headers = newValue } }
    }
    /// The request content (de-chunked), empty when there is none.
    public var body: [UInt8] {
        _read { yield storage.fields.body }
        set { update { $0.body = newValue } }
    }
    /// The peer's IP address, when the request came from a socket.
    public var remoteAddress: String? {
        _read { yield storage.fields.remoteAddress }
        set { update { $0.remoteAddress = newValue } }
    }

    public init(
        method: HTTPMethod, target: String, path: String? = nil,
        query: [(name: String, value: String)]? = nil,
        version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String? = nil
    ) {
        let resolvedPath: String
        let resolvedQuery: [(name: String, value: String)]
        if let path {
            resolvedPath = path
            resolvedQuery = query ?? []
        } else {
            let parts = (try? RequestTarget.parse(Array(target.utf8))) ?? RequestTarget(path: target, query: [])
            resolvedPath = parts.path
            resolvedQuery = query ?? parts.query
        }
        storage = Storage(
            Fields(
                method: method, target: .text(target), path: resolvedPath, query: resolvedQuery, version: version,
                headers: headers, body: body, remoteAddress: remoteAddress))
    }

    /// A parsed request: its target's bytes (ASCII, checked by the parser) and header fields as
    /// they came, in `head`.
    init(
        method: HTTPMethod, head: ReceivedFields, path: String, query: [(name: String, value: String)],
        version: HTTPVersion, body: [UInt8], remoteAddress: String?
    ) {
        storage = Storage(
            Fields(
                method: method, target: .received(head), path: path, query: query, version: version,
                headers: HTTPHeaders(received: head), body: body, remoteAddress: remoteAddress))
    }

    /// This parsed request with header fields `head` in place of those it was received with
    /// (the same target, lines and spans: ``ReceivedFields/changingValues(from:to:)``).
    func receiving(_ head: ReceivedFields) -> HTTPRequest {
        var fields = storage.fields
        if case .received = fields.target { fields.target = .received(head) }
        fields.headers = HTTPHeaders(received: head)
        return HTTPRequest(storage: Storage(fields))
    }

    private init(storage: Storage) { self.storage = storage }

    /// Every value of the query parameter `name`, in order.
    public func queryValues(_ name: String) -> [String] {
        query.filter { $0.name == name }.map(\.value)
    }

    /// Whether the connection may carry another request after this one (RFC 9112 section 9.3):
    /// HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        if version == .http1_1 { return !headers.containsToken("close", in: "Connection") }
        return headers.containsToken("keep-alive", in: "Connection")
            && !headers.containsToken("close", in: "Connection")
    }
}
