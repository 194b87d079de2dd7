import HubMetrics
import HubUpstream

/// Counts upstream requests, errors by kind and cache hits for `/metrics`.
struct InstrumentedUpstreamClient: UpstreamClient {
    let base: any UpstreamClient
    let metrics: ServerMetrics

    func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        metrics.upstreamRequests.labels().increment()
        let start = ContinuousClock.now
        do {
            let response = try await base.send(request)
            metrics.upstreamDuration.labels().observe(ContinuousClock.now - start)
            switch response.cacheStatus {
            case .hit: metrics.upstreamCacheHits.labels("fresh").increment()
            case .revalidated: metrics.upstreamCacheHits.labels("revalidated").increment()
            default: break
            }
            if !(200..<400).contains(response.status) {
                metrics.upstreamErrors.labels("http_\(response.status / 100)xx").increment()
            }
            return response
        } catch let error as UpstreamError {
            metrics.upstreamDuration.labels().observe(ContinuousClock.now - start)
            metrics.upstreamErrors.labels(error.metricLabel).increment()
            throw error
        }
    }
}

extension UpstreamError {
    /// A low-cardinality label for metrics.
    var metricLabel: String {
        switch kind {
        case .timeout: return "timeout"
        case .connectFailed: return "connect_failed"
        case .connectionReset: return "connection_reset"
        case .tooLarge: return "too_large"
        case .httpStatus(let status): return "http_\(status / 100)xx"
        case .invalidJSON: return "invalid_json"
        case .emptyBody: return "empty_body"
        case .invalidURL: return "invalid_url"
        case .fileNotFound: return "file_not_found"
        case .other: return "other"
        }
    }
}
