import HubMetrics
import HubHTTP

/// Records every request's route template, status and duration in metrics and one log line.
struct ObservabilityMiddleware: HTTPMiddleware {
    let metrics: ServerMetrics
    let logger: JSONLogger

    func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) async throws -> HTTPResponse {
        let start = ContinuousClock.now
        var status = 500
        defer {
            let elapsed = ContinuousClock.now - start
            let route = context.routeTemplate ?? "unmatched"
            let children = metrics.request(route: route, method: request.method.rawValue, status: status)
            children.count.increment()
            children.duration.observe(elapsed)
            let level: JSONLogger.Level = status >= 500 ? .error : .info
            if logger.isEnabled(level) {
                let (seconds, attoseconds) = elapsed.components
                let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
                logger.log(
                    level, "request",
                    [
                        "request_id": context.requestId, "method": request.method.rawValue, "route": route,
                        "path": request.path, "status": String(status),
                        "duration_ms": String((milliseconds * 1000).rounded() / 1000),
                    ])
            }
        }
        do {
            let response = try await next.respond(to: request, context: context)
            status = response.status.code
            return response
        } catch let error as any HTTPResponseError {
            status = error.status.code
            throw error
        }
    }
}
