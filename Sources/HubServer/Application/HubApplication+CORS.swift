import HubHTTP
import HubMetrics

extension HubApplication {
    /// The CORS middleware for `policy` (none when CORS is off), counting requests from
    /// disallowed origins in `hub_cors_rejected_total{kind}` (`preflight` or `request`).
    /// It belongs outside ``ErrorMiddleware`` so that problem responses carry CORS headers.
    static func corsMiddleware(_ policy: CORSPolicy?, router: Router, registry: MetricsRegistry) -> [any HTTPMiddleware] {
        guard let policy else { return [] }
        let rejected = EdgeMetrics.corsRejected(on: registry)
        let preflight = rejected.labels(CORSMiddleware.Rejection.preflight.rawValue)
        let request = rejected.labels(CORSMiddleware.Rejection.request.rawValue)
        return [
            CORSMiddleware(policy: policy, routes: { router.route(for: $0) }) { rejection in
                switch rejection {
                case .preflight: preflight.increment()
                case .request: request.increment()
                }
            }
        ]
    }
}
