/// Turns every error thrown below it into an RFC 9457 problem response: an ``HTTPResponseError``
/// answers with its own status and problem, anything else with 500 `internal_error` and a
/// generic detail (the error itself is only passed to `report`, never to the client).
public struct ErrorMiddleware: ImmediateHTTPMiddleware {
    private let report: (@Sendable (any Error, HTTPRequest, RequestContext) -> Void)?

    /// - Parameter report: called with errors that become a 500 (for logging).
    public init(report: (@Sendable (any Error, HTTPRequest, RequestContext) -> Void)? = nil) {
        self.report = report
    }

    public nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) async throws -> HTTPResponse {
        do {
            return try await next.respond(to: request, context: context)
        } catch {
            return response(for: error, request, context)
        }
    }

    public func respondImmediately(to request: HTTPRequest, context: RequestContext, next: any ImmediateHTTPResponder) throws -> HTTPResponse? {
        do {
            return try next.respondImmediately(to: request, context: context)
        } catch {
            return response(for: error, request, context)
        }
    }

    private func response(for error: any Error, _ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        if let error = error as? any HTTPResponseError { return error.response }
        report?(error, request, context)
        return HTTPError.internalError.response
    }
}
