/// A responder from a closure.
public struct ClosureResponder: HTTPResponder {
    private let body: nonisolated(nonsending) @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

    public init(_ body: nonisolated(nonsending) @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse) {
        self.body = body
    }

    public nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await body(request, context)
    }
}
