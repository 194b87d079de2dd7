/// Code that runs around a responder: it may change the request, answer itself, or change the response.
public protocol HTTPMiddleware: Sendable {
    nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) async throws -> HTTPResponse
}
