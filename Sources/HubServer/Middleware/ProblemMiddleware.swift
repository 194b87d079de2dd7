import HubEngine
import HubHTTP

/// The one door through which the engine's, the state store's and the upstream client's errors
/// become problems (RFC 9457, ``ProblemMapping``): endpoints throw them as they come, and this
/// middleware's failure hook answers each with its status and code. Errors it does not know
/// (and ``HTTPError``s, which answer themselves) pass on to ``ErrorMiddleware``.
struct ProblemMiddleware: HTTPMiddleware {
    func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        guard let problem = ProblemMapping.problem(for: error) else { throw error }
        return problem.response
    }
}
