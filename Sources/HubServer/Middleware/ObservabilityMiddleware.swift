import HubMetrics
import HubHTTP
import HubSync

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

    /// Longest raw path written to a log line (the rest is cut and marked).
    static let maximumLoggedPathBytes = 1024

    nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) async throws -> HTTPResponse {
        // From when the request was complete (the context's start): one clock read fewer.
        let start = context.startTime
        var status = 500
        var problemCode: String?
        defer {
            let elapsed = ContinuousClock.now - start
            let route = context.routeTemplate ?? "unmatched"
            let method = request.method.boundedLabel
            let children = metrics.request(route: route, method: method, status: status)
            children.count.increment()
            children.duration.observe(elapsed)
            let level: JSONLogger.Level = status >= 500 ? .error : .info
            let milliseconds = elapsed.inMilliseconds
            if logger.isEnabled(level), accessLog.shouldLog(status: status, milliseconds: milliseconds) {
                let traceID = LogValue.string(TraceContext.traceID(of: context.traceParent) ?? "")
                var path = request.path
                if path.utf8.count > Self.maximumLoggedPathBytes {
                    path = String(decoding: path.utf8.prefix(Self.maximumLoggedPathBytes), as: UTF8.self) + "..."
                }
                let duration = LogValue.double((milliseconds * 1000).rounded() / 1000)
                let methodValue = LogValue.string(method)
                if let problemCode {
                    logger.log(
                        level, "request",
                        [
                            "request_id": .string(context.requestId), "trace_id": traceID, "method": methodValue,
                            "route": .string(route),
                            "path": .string(path), "status": .int(status), "duration_ms": duration,
                            "code": .string(problemCode),
                        ])
                } else {
                    logger.log(
                        level, "request",
                        [
                            "request_id": .string(context.requestId), "trace_id": traceID, "method": methodValue,
                            "route": .string(route),
                            "path": .string(path), "status": .int(status), "duration_ms": duration,
                        ])
                }
            }
        }
        do {
            let response = try await next.respond(to: request, context: context)
            status = response.status.code
            problemCode = response.problemCode
            return response
        } catch let error as any HTTPResponseError {
            status = error.status.code
            problemCode = error.problem.code
            throw error
        }
    }
}
