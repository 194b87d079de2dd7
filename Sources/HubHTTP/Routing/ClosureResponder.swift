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
