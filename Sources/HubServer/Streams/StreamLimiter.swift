import HubHTTP
import HubMetrics
import HubSync
import Synchronization

/// Caps Server-Sent Events streams: `limits.sseListenersPerSession` per session,
/// `limits.sseStreamsPerClient` per client and `limits.sseStreams` in all. A stream beyond a cap
/// is refused before it opens (429 `too_many_streams` per session or per client, 503
/// `stream_limit` globally, all with `Retry-After`); streams already open are never touched.
/// Refusals count in `hub_sse_streams_refused_total{cap}` (and per client also in
/// `hub_client_limited_total{limit="streams_per_client"}`); the global cap is
/// `hub_sse_streams_max` (beside `hub_sse_streams`, for a "near the cap" alert).
///
/// Counting happens here, synchronously, rather than from the session's subscriber gauge,
/// which drops only after an asynchronous hop once a listener leaves.
final class StreamLimiter: Sendable {
    /// Seconds a client is told to wait after a per-session refusal: its own streams must end first.
    static let perSessionRetryAfterSeconds = 10
    /// Seconds a client is told to wait after a global refusal: others' streams must end first.
    static let globalRetryAfterSeconds = 30

    private struct Counts {
        var total = 0
        var bySession: [String: Int] = [:]
        var byClient: [String: Int] = [:]
    }

    let perSessionLimit: Int
    let perClientLimit: Int
    let globalLimit: Int
    private let counts = Locked(Counts())
    private let refusedPerSession: Counter
    private let refusedPerClient: Counter
    private let refusedGlobal: Counter
    private let perClientRefusals: Counter?

    init(perSession: Int, perClient: Int = .max, global: Int, registry: MetricsRegistry, perClientRefusals: Counter? = nil) {
        perSessionLimit = perSession
        perClientLimit = perClient
        globalLimit = global
        let refused = StreamMetrics.streamsRefused(on: registry)
        refusedPerSession = refused.labels("per_session")
        refusedPerClient = refused.labels("per_client")
        refusedGlobal = refused.labels("global")
        self.perClientRefusals = perClientRefusals
        StreamMetrics.streamsMax(on: registry).set(Int64(global))
    }

    /// Streams open now, in all and for `session`.
    func openStreams(session: String? = nil) -> Int {
        counts.withLock { counts in session.map { counts.bySession[$0] ?? 0 } ?? counts.total }
    }

    /// Takes one stream slot for `session`, or throws the refusal. The lease must be released
    /// exactly once when the stream ends (``Lease/release()`` is idempotent).
    func acquire(session: String, client: String = "") throws -> Lease {
        enum Outcome { case granted, perSession, perClient, global }
        let outcome = counts.withLock { counts -> Outcome in
            let mine = counts.bySession[session] ?? 0
            if mine >= perSessionLimit { return .perSession }
            let clients = counts.byClient[client] ?? 0
            if clients >= perClientLimit { return .perClient }
            if counts.total >= globalLimit { return .global }
            counts.bySession[session] = mine + 1
            counts.byClient[client] = clients + 1
            counts.total += 1
            return .granted
        }
        switch outcome {
        case .granted:
            return Lease(limiter: self, session: session, client: client)
        case .perClient:
            refusedPerClient.increment()
            perClientRefusals?.increment()
            throw HTTPError(
                .tooManyRequests, code: "too_many_streams",
                detail: "this client already has \(perClientLimit) event streams open; close one first",
                headers: ["Retry-After": String(Self.perSessionRetryAfterSeconds)])
        case .perSession:
            refusedPerSession.increment()
            throw HTTPError(
                .tooManyRequests, code: "too_many_streams",
                detail: "this session already has \(perSessionLimit) event streams open; close one first",
                headers: ["Retry-After": String(Self.perSessionRetryAfterSeconds)])
        case .global:
            refusedGlobal.increment()
            throw HTTPError(
                .serviceUnavailable, code: "stream_limit",
                detail: "the server has as many event streams open as it allows; try again later",
                headers: ["Retry-After": String(Self.globalRetryAfterSeconds)])
        }
    }

    fileprivate func release(session: String, client: String) {
        counts.withLock { counts in
            counts.total -= 1
            let left = (counts.bySession[session] ?? 1) - 1
            counts.bySession[session] = left > 0 ? left : nil
            let clientLeft = (counts.byClient[client] ?? 1) - 1
            counts.byClient[client] = clientLeft > 0 ? clientLeft : nil
        }
    }

    /// One open stream's slot.
    final class Lease: Sendable {
        private let limiter: StreamLimiter
        private let session: String
        private let client: String
        private let released = Atomic<Bool>(false)

        fileprivate init(limiter: StreamLimiter, session: String, client: String) {
            self.limiter = limiter
            self.session = session
            self.client = client
        }

        /// Gives the slot back; later calls do nothing.
        func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            limiter.release(session: session, client: client)
        }

        deinit { release() }
    }
}
