/// A responder that can answer some requests at once, without suspending: a connection asks it
/// first, on its event loop, and starts the request's task (``HTTPResponder/respond(to:context:)``)
/// only when it answers `nil`. A settled view is answered this way: no task to create, no
/// suspension points to pass through each middleware.
///
/// The two paths must agree: `respondImmediately` answers exactly what `respond` would, or `nil`
/// having done nothing a client could observe (the asynchronous path then starts over), or
/// throws what `respond` would throw.
public protocol ImmediateHTTPResponder: HTTPResponder {
    /// The response to `request` when it can be made now without waiting for anything; `nil`
    /// when the request needs the asynchronous path.
    func respondImmediately(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse?
}

/// A middleware that can run around an ``ImmediateHTTPResponder`` without suspending. It must
/// behave as its ``HTTPMiddleware/respond(to:context:next:)`` does, and return `nil` (with no
/// observable effect) exactly when `next` does.
public protocol ImmediateHTTPMiddleware: HTTPMiddleware {
    /// ``HTTPMiddleware/respond(to:context:next:)`` without suspending: `nil` when `next` answers `nil`.
    func respondImmediately(to request: HTTPRequest, context: RequestContext, next: any ImmediateHTTPResponder) throws -> HTTPResponse?
}

/// An immediate middleware applied to an immediate responder: immediate itself.
struct ImmediateMiddlewareResponder: ImmediateHTTPResponder {
    let middleware: any ImmediateHTTPMiddleware
    let next: any ImmediateHTTPResponder

    nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await middleware.respond(to: request, context: context, next: next)
    }

    func respondImmediately(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? {
        try middleware.respondImmediately(to: request, context: context, next: next)
    }
}

extension ImmediateHTTPResponder {
    /// ``respondImmediately(to:context:)`` as a connection sends it: an escaping error becomes
    /// its problem response, as ``HTTPResponder/answer(_:context:)`` makes it.
    public func answerImmediately(_ request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        do {
            return try respondImmediately(to: request, context: context)
        } catch let error as any HTTPResponseError {
            return error.response
        } catch {
            return HTTPError.internalError.response
        }
    }
}
