/// What a responder answers a request with: the response now, or the work that makes it.
///
/// A connection writes a `now` answer on its event loop, with no task; for `later` it starts
/// one task (preferring the loop as its executor) that runs the work, and the middleware's
/// after-hooks run when the work resolves (``MiddlewareChain``).
public enum HTTPAnswer: Sendable {
    /// The response, made without waiting for anything.
    case now(HTTPResponse)
    /// Work to run in a task: it returns the response or throws what becomes one.
    case later(@Sendable () async throws -> HTTPResponse)
}
