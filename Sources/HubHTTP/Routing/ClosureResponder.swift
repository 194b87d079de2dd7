/// A responder from a closure, with an optional immediate form (``ImmediateHTTPResponder``):
/// without one, it never answers immediately.
public struct ClosureResponder: ImmediateHTTPResponder {
    private let body: nonisolated(nonsending) @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse
    private let immediate: (@Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse?)?

    /// `immediate`: what ``respondImmediately(to:context:)`` answers (see ``ImmediateHTTPResponder``
    /// for what it must agree with); `nil` for a closure that always needs the asynchronous path.
    public init(
        immediate: (@Sendable (HTTPRequest, RequestContext) throws -> HTTPResponse?)? = nil,
        _ body: nonisolated(nonsending) @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse
    ) {
        self.body = body
        self.immediate = immediate
    }

    public nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await body(request, context)
    }

    public func respondImmediately(to request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? {
        try immediate?(request, context)
    }
}
