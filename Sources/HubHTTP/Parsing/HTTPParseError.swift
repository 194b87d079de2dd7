/// A request the parser rejects. Each one is answered with its status and a problem body,
/// then the connection is closed (the framing can no longer be trusted).
public struct HTTPParseError: HTTPResponseError, Sendable, Hashable, CustomStringConvertible {
    public let status: HTTPStatus
    /// The stable snake_case code of the problem body.
    public let code: String
    /// A safe, human-readable explanation.
    public let detail: String

    init(_ status: HTTPStatus, _ code: String, _ detail: String) {
        self.status = status
        self.code = code
        self.detail = detail
    }

    public var problem: ProblemDetails { ProblemDetails(status: status, code: code, detail: detail) }

    public var description: String { "\(status.code) \(code): \(detail)" }

    static func bad(_ code: String, _ detail: String) -> HTTPParseError { HTTPParseError(.badRequest, code, detail) }

    static let requestLineTooLong = HTTPParseError(.uriTooLong, "request_line_too_long", "The request line is too long.")
    static let headersTooLarge = HTTPParseError(
        .requestHeaderFieldsTooLarge, "headers_too_large", "The request header section is too large.")
    static let tooManyHeaders = HTTPParseError(
        .requestHeaderFieldsTooLarge, "too_many_headers", "The request has too many header fields.")
    static let bodyTooLarge = HTTPParseError(.contentTooLarge, "body_too_large", "The request content is too large.")
    static let headerTimeout = HTTPParseError(
        .requestTimeout, "header_timeout", "The request header section did not arrive in time.")
    static let bodyTimeout = HTTPParseError(.requestTimeout, "body_timeout", "The request content did not arrive in time.")
}
