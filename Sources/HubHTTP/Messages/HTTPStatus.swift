/// A response status: the three-digit code and its reason phrase.
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The status code, 100...999.
    public let code: Int
    /// The reason phrase written on the status line (informational only, RFC 9112 section 4).
    public let reasonPhrase: String

    public init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    /// A status with the standard reason phrase for `code` (or an empty one).
    public init(code: Int) {
        self.init(code: code, reasonPhrase: HTTPStatus.standardReasons[code] ?? "")
    }

    public var description: String { "\(code) \(reasonPhrase)" }

    /// Whether a response with this status never has content (1xx, 204, 304: RFC 9110 section 6.4.1).
    public var forbidsBody: Bool { code < 200 || code == 204 || code == 304 }

    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static let `continue` = HTTPStatus(code: 100)
    /// Computed from literals (as `notModified`): the statuses of nearly every response, and a
    /// stored static is reached through a one-time initialization check on every use.
    public static var ok: HTTPStatus { HTTPStatus(code: 200, reasonPhrase: "OK") }
    public static let created = HTTPStatus(code: 201)
    public static let accepted = HTTPStatus(code: 202)
    public static let noContent = HTTPStatus(code: 204)
    public static let movedPermanently = HTTPStatus(code: 301)
    public static let found = HTTPStatus(code: 302)
    public static var notModified: HTTPStatus { HTTPStatus(code: 304, reasonPhrase: "Not Modified") }
    public static let badRequest = HTTPStatus(code: 400)
    public static let unauthorized = HTTPStatus(code: 401)
    public static let forbidden = HTTPStatus(code: 403)
    public static let notFound = HTTPStatus(code: 404)
    public static let methodNotAllowed = HTTPStatus(code: 405)
    public static let notAcceptable = HTTPStatus(code: 406)
    public static let requestTimeout = HTTPStatus(code: 408)
    public static let conflict = HTTPStatus(code: 409)
    public static let gone = HTTPStatus(code: 410)
    public static let lengthRequired = HTTPStatus(code: 411)
    public static let preconditionFailed = HTTPStatus(code: 412)
    public static let contentTooLarge = HTTPStatus(code: 413)
    public static let uriTooLong = HTTPStatus(code: 414)
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    public static let expectationFailed = HTTPStatus(code: 417)
    public static let unprocessableContent = HTTPStatus(code: 422)
    public static let tooManyRequests = HTTPStatus(code: 429)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    public static let internalServerError = HTTPStatus(code: 500)
    public static let notImplemented = HTTPStatus(code: 501)
    public static let badGateway = HTTPStatus(code: 502)
    public static let serviceUnavailable = HTTPStatus(code: 503)
    public static let gatewayTimeout = HTTPStatus(code: 504)
    public static let httpVersionNotSupported = HTTPStatus(code: 505)

    static let standardReasons: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content", 426: "Upgrade Required",
        428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]
}
