/// Code that runs around a handler, as synchronous hooks a ``MiddlewareChain`` runs once per
/// request: ``before(_:context:)`` on the way in (it may answer the request itself),
/// ``after(_:to:context:)`` on the response on the way out, and ``failed(_:request:context:)``
/// on an error thrown below it. None of them waits: a handler's asynchronous work runs between
/// the way in and the way out, so a response made now is answered with no task.
///
/// Every hook has a default that does nothing (passes the request, the response or the error on).
public protocol HTTPMiddleware: Sendable {
    /// On the way in, outermost first. A response answers the request here: the middleware
    /// inside this one and the handler do not run, and the after-hooks outside this one see it.
    /// A thrown error goes to the error hooks outside this one.
    func before(_ request: HTTPRequest, context: RequestContext) throws -> HTTPResponse?

    /// On the way out, innermost first: the response as this middleware passes it on.
    func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse

    /// An error thrown by the handler or a hook inside this middleware: a response replaces it
    /// (the after-hooks outside this one see that response); throwing passes an error outward.
    func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse
}

extension HTTPMiddleware {
    public func before(_ request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? { nil }

    public func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        response
    }

    public func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        throw error
    }
}
