/// A general-purpose ``HTTPResponseError``: a status, a stable code and a safe detail.
public struct HTTPError: HTTPResponseError, Sendable, Hashable, CustomStringConvertible {
    public let status: HTTPStatus
    /// The stable snake_case code.
    public let code: String
    /// The human-readable detail; must not contain internals.
    public let detail: String?
    public let headers: HTTPHeaders

    public init(_ status: HTTPStatus, code: String, detail: String? = nil, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
    }

    public var problem: ProblemDetails { ProblemDetails(status: status, code: code, detail: detail) }

    public var description: String { "\(status.code) \(code)" + (detail.map { ": \($0)" } ?? "") }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool {
        lhs.status == rhs.status && lhs.code == rhs.code && lhs.detail == rhs.detail
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(code)
        hasher.combine(detail)
    }

    public static func badRequest(_ code: String, _ detail: String? = nil) -> HTTPError {
        HTTPError(.badRequest, code: code, detail: detail)
    }

    public static func notFound(_ code: String, _ detail: String? = nil) -> HTTPError {
        HTTPError(.notFound, code: code, detail: detail)
    }

    /// The 500 answer for any error that is not an ``HTTPResponseError``; says nothing about the cause.
    public static let internalError = HTTPError(
        .internalServerError, code: "internal_error", detail: "The server could not complete the request."
    )
}
