/// The one seam of the server: anything that turns a request into a response.
/// The router, middleware chains and endpoints are all responders, callable without a socket.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse
}

/// A responder from a closure.
public struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse) {
        self.body = body
    }

    public func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await body(request, context)
    }
}

/// Code that runs around a responder: it may change the request, answer itself, or change the response.
public protocol HTTPMiddleware: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) async throws -> HTTPResponse
}

/// A middleware applied to the responder after it.
struct MiddlewareResponder: HTTPResponder {
    let middleware: any HTTPMiddleware
    let next: any HTTPResponder

    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await middleware.respond(to: request, context: context, next: next)
    }
}

extension HTTPResponder {
    /// This responder wrapped in `middleware`, the first element outermost:
    /// `router.wrapped(in: [ErrorMiddleware(), RequestIDMiddleware(), RepresentationMiddleware()])`.
    public func wrapped(in middleware: [any HTTPMiddleware]) -> any HTTPResponder {
        var responder: any HTTPResponder = self
        for item in middleware.reversed() { responder = MiddlewareResponder(middleware: item, next: responder) }
        return responder
    }
}
