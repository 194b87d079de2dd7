/// Puts the context's request id on the response as `X-Request-Id` (the server also does this for
/// every response it writes; this middleware makes it visible to in-memory tests and outer middleware).
public struct RequestIDMiddleware: HTTPMiddleware {
    public init() {}

    public func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        var response = response
        if !response.headers.contains(RequestID.headerName) {
            response.headers.add(name: RequestID.headerName, value: context.requestId)
        }
        return response
    }
}
