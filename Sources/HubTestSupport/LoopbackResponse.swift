import HubHTTP

/// A response as a loopback client read it off the wire (or off bytes encoded in memory).
public struct LoopbackResponse: Sendable, CustomStringConvertible {
    /// The status code.
    public var status: Int
    /// The header fields in the order received.
    public var headers: HTTPHeaders
    /// The content, de-chunked (empty for HEAD, 1xx, 204 and 304).
    public var body: [UInt8]

    /// A response with these parts.
    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name] }

    /// Every value of the header `name`, in order.
    public func headerValues(_ name: String) -> [String] { headers.values(for: name) }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    public var description: String {
        "HTTP \(status) \(headers.map { "\($0.name): \($0.value)" }) \(text.prefix(600))"
    }
}
