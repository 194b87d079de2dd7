/// A parsed HTTP/1.x request with its whole body.
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The request target exactly as sent on the request line (origin-, absolute- or asterisk-form).
    public var target: String
    /// The target's path, percent-decoded (`/` for an absolute-form target without a path).
    public var path: String
    /// The query parameters in order, percent-decoded; `+` stays a literal plus (RFC 3986).
    public var query: [(name: String, value: String)]
    /// The protocol version from the request line.
    public var version: HTTPVersion
    /// The header fields in the order received.
    public var headers: HTTPHeaders
    /// The request content (de-chunked), empty when there is none.
    public var body: [UInt8]
    /// The peer's IP address, when the request came from a socket.
    public var remoteAddress: String?

    public init(
        method: HTTPMethod, target: String, path: String? = nil,
        query: [(name: String, value: String)]? = nil,
        version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String? = nil
    ) {
        self.method = method
        self.target = target
        if let path {
            self.path = path
            self.query = query ?? []
        } else {
            let parts = (try? RequestTarget.parse(Array(target.utf8))) ?? RequestTarget(path: target, query: [])
            self.path = parts.path
            self.query = query ?? parts.query
        }
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

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
