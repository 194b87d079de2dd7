/// A responder from a closure: one that answers (now or later, ``HTTPAnswer``), or an
/// asynchronous one, always answered later (in a task).
public struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest, RequestContext) throws -> HTTPAnswer

    /// A responder whose closure decides between a response now and work for later.
    public init(answer: @escaping @Sendable (HTTPRequest, RequestContext) throws -> HTTPAnswer) {
        self.body = answer
    }

    /// A responder whose response is always made in a task.
    public init(_ body: nonisolated(nonsending) @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse) {
        self.body = { request, context in .later { try await body(request, context) } }
    }

    public func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer {
        try body(request, context)
    }
}
