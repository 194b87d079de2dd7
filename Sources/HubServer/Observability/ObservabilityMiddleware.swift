import HubEngine
import HubHTTP
import HubLogging
import HubMetrics
import HubOperations
import HubPrimitives

/// Records every request's route template, status and duration in metrics and one log line.
///
/// Labels and log fields draw only on bounded values: the route template (never the raw
/// path, except in the log's `path`), the method when it is a standard one (`OTHER` else),
/// and the status. A failed request's line names its problem `code`.
struct ObservabilityMiddleware: HTTPMiddleware {
    let metrics: ServerMetrics
    let logger: JSONLogger
    /// Which requests write their line (metrics count every request).
    var accessLog = AccessLogPolicy()
    /// Counts `X-Forwarded-For` from peers that are not trusted proxies (``ClientAddress``).
    var clientAddress: ClientAddress?

    /// Longest raw path written to a log line (the rest is cut and marked).
    static let maximumLoggedPathBytes = 1024

    func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        record(request, context, status: response.status.code, problemCode: response.problemCode)
        return response
    }

    /// Records the error's status and passes the error on.
    func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        record(request, context, error: error)
        throw error
    }

    /// A thrown error's status and problem code: its own for an ``HTTPResponseError``, else 500.
    private func record(_ request: HTTPRequest, _ context: RequestContext, error: any Error) {
        if let error = error as? any HTTPResponseError {
            record(request, context, status: error.status.code, problemCode: error.problem.code)
        } else {
            record(request, context, status: 500, problemCode: nil)
        }
    }

    /// Counts the request and writes its log line (when the policy says so).
    private func record(_ request: HTTPRequest, _ context: RequestContext, status: Int, problemCode: String?) {
        clientAddress?.noteForwarding(of: request)
        // From when the request was complete (the context's start): one clock read fewer.
        let elapsed = ContinuousClock.now - context.startTime
        let route = context.routeTemplate ?? "unmatched"
        let method = request.method.boundedLabel
        let children = metrics.request(route: route, method: method, status: status)
        children.count.increment()
        children.duration.observe(elapsed)
        let level: JSONLogger.Level = status >= 500 ? .error : .info
        let milliseconds = elapsed.inMilliseconds
        guard logger.isEnabled(level), accessLog.shouldLog(status: status, milliseconds: milliseconds) else { return }
        let traceID = LogValue.string(TraceContext.traceID(of: context.traceParent) ?? "")
        var path = request.path
        if path.utf8.count > Self.maximumLoggedPathBytes {
            path = String(decoding: path.utf8.prefix(Self.maximumLoggedPathBytes), as: UTF8.self) + "..."
        }
        let duration = LogValue.double((milliseconds * 1000).rounded() / 1000)
        let methodValue = LogValue.string(method)
        // A verified user is logged as the keyed digest of their subject (the same for every
        // request of theirs), never the subject or the token.
        if let user = context.user {
            logger.log(
                level, "request",
                [
                    "request_id": .string(context.requestId), "trace_id": traceID, "method": methodValue,
                    "route": .string(route), "path": .string(path), "status": .int(status), "duration_ms": duration,
                    "code": .string(problemCode ?? ""), "user": .string(user.digest),
                ])
        } else if let problemCode {
            logger.log(
                level, "request",
                [
                    "request_id": .string(context.requestId), "trace_id": traceID, "method": methodValue,
                    "route": .string(route), "path": .string(path), "status": .int(status), "duration_ms": duration,
                    "code": .string(problemCode),
                ])
        } else {
            logger.log(
                level, "request",
                [
                    "request_id": .string(context.requestId), "trace_id": traceID, "method": methodValue,
                    "route": .string(route), "path": .string(path), "status": .int(status), "duration_ms": duration,
                ])
        }
    }
}
