/// The one seam of the server: anything that turns a request into a response.
/// The router, middleware chains and endpoints are all responders, callable without a socket.
public protocol HTTPResponder: Sendable {
    /// The answer to `request`: the response now when it can be made without waiting, else the
    /// work that makes it (``HTTPAnswer``). Runs on the connection's event loop: never block here.
    func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer
}

extension HTTPResponder {
    /// The response to `request`, running the work of a `later` answer; errors escape.
    public func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        switch try answer(to: request, context: context) {
        case .now(let response): return response
        case .later(let work): return try await work()
        }
    }

    /// ``answer(to:context:)`` as a connection sends it: an error that escapes (now, or from the
    /// work of a `later` answer) becomes its problem response (an ``HTTPResponseError``), or 500
    /// `internal_error` without internals (anything else); the work of the answer never throws.
    public func connectionAnswer(to request: HTTPRequest, context: RequestContext) -> HTTPAnswer {
        do {
            switch try answer(to: request, context: context) {
            case .now(let response):
                return .now(response)
            case .later(let work):
                return .later {
                    do { return try await work() } catch { return Self.problemResponse(for: error) }
                }
            }
        } catch {
            return .now(Self.problemResponse(for: error))
        }
    }

    /// The response to `request` as a connection sends it (``connectionAnswer(to:context:)``),
    /// waited for: for in-memory callers such as `HubApplication.respond(to:)`.
    public func response(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        switch connectionAnswer(to: request, context: context) {
        case .now(let response): return response
        case .later(let work): return (try? await work()) ?? HTTPError.internalError.response
        }
    }

    private static func problemResponse(for error: any Error) -> HTTPResponse {
        (error as? any HTTPResponseError)?.response ?? HTTPError.internalError.response
    }
}
