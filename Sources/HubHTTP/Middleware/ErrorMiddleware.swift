/// Turns every error thrown below it into an RFC 9457 problem response: an ``HTTPResponseError``
/// answers with its own status and problem, anything else with 500 `internal_error` and a
/// generic detail (the error itself is only passed to `report`, never to the client).
public struct ErrorMiddleware: HTTPMiddleware {
    private let report: (@Sendable (any Error, HTTPRequest, RequestContext) -> Void)?

    /// - Parameter report: called with errors that become a 500 (for logging).
    public init(report: (@Sendable (any Error, HTTPRequest, RequestContext) -> Void)? = nil) {
        self.report = report
    }

    public func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        response(for: error, request, context)
    }

    private func response(for error: any Error, _ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        if let error = error as? any HTTPResponseError { return error.response }
        report?(error, request, context)
        return HTTPError.internalError.response
    }
}
