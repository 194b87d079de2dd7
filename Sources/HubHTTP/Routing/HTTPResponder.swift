/// The one seam of the server: anything that turns a request into a response.
/// The router, middleware chains and endpoints are all responders, callable without a socket.
public protocol HTTPResponder: Sendable {
    nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse
}

/// A middleware applied to the responder after it.
struct MiddlewareResponder: HTTPResponder {
    let middleware: any HTTPMiddleware
    let next: any HTTPResponder

    nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await middleware.respond(to: request, context: context, next: next)
    }
}

extension HTTPResponder {
    /// This responder wrapped in `middleware`, the first element outermost:
    /// `router.wrapped(in: [ErrorMiddleware(), RequestIDMiddleware(), RepresentationMiddleware()])`.
    /// While every layer from the innermost out is immediate (``ImmediateHTTPResponder``,
    /// ``ImmediateHTTPMiddleware``), the wrapped responder is immediate too.
    public func wrapped(in middleware: [any HTTPMiddleware]) -> any HTTPResponder {
        var responder: any HTTPResponder = self
        for item in middleware.reversed() {
            if let immediate = item as? any ImmediateHTTPMiddleware, let next = responder as? any ImmediateHTTPResponder {
                responder = ImmediateMiddlewareResponder(middleware: immediate, next: next)
            } else {
                responder = MiddlewareResponder(middleware: item, next: responder)
            }
        }
        return responder
    }

    /// The response to `request` as a connection sends it: an error that escapes this responder
    /// becomes its problem response (an ``HTTPResponseError``), or 500 `internal_error` without
    /// internals (anything else). For in-memory callers such as `HubApplication.respond(to:)`.
    public nonisolated(nonsending) func answer(_ request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        do {
            return try await respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            return error.response
        } catch {
            return HTTPError.internalError.response
        }
    }
}
