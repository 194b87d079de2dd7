/// An error that knows how it is answered: thrown anywhere below ``ErrorMiddleware``, it becomes
/// its ``problem`` with its ``status``. Any other error becomes a 500 `internal_error`.
public protocol HTTPResponseError: Error {
    /// The status to answer with.
    var status: HTTPStatus { get }
    /// The problem body; its `status` should equal ``status``.
    var problem: ProblemDetails { get }
    /// Extra response headers (for example `Allow` on a 405). Empty by default.
    var headers: HTTPHeaders { get }
}

extension HTTPResponseError {
    public var headers: HTTPHeaders { [:] }

    /// The problem response for this error.
    public var response: HTTPResponse {
        var response = HTTPResponse.problem(problem)
        response.status = status
        for field in headers { response.headers.replaceOrAdd(name: field.name, value: field.value) }
        return response
    }
}
