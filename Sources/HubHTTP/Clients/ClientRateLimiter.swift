import HubPrimitives
import HubSync

/// Token buckets per client (``RateLimit``): what `limits.sessionsPerClient` counts (new and
/// rebuilt sessions, a lazy token's first use, revocations recorded). A client's bucket is
/// forgotten once it would be full again, so memory follows the clients active in the last
/// `burst / perSecond` seconds, not every address ever seen.
package final class ClientRateLimiter: Sendable {
    private struct Bucket {
        package var tokens: Double
        package var updated: ContinuousClock.Instant
    }

    private struct State {
        package var buckets: [String: Bucket] = [:]
        /// Size at which the next sweep of full buckets runs (doubles with what stays).
        package var sweepAt = 1024
    }

    package let limit: RateLimit
    private let state = Locked(State())

    package init(limit: RateLimit) {
        self.limit = limit
    }

    /// Takes one token from `client`'s bucket; `false` when it is empty.
    package func take(_ client: String, now: ContinuousClock.Instant = .now) -> Bool {
        let limit = self.limit
        return state.withLock { state in
            var bucket = state.buckets[client] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = (now - bucket.updated).inSeconds
            bucket.tokens = min(Double(limit.burst), bucket.tokens + max(0, elapsed) * limit.perSecond)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                state.buckets[client] = bucket
                return false
            }
            bucket.tokens -= 1
            state.buckets[client] = bucket
            if state.buckets.count >= state.sweepAt { Self.sweep(&state, limit: limit, now: now) }
            return true
        }
    }

    /// Clients with a bucket now.
    package var trackedClients: Int { state.withLock { $0.buckets.count } }

    /// Drops buckets that have refilled by `now` (they are the same as no bucket). Amortized:
    /// runs when the table has doubled since the last sweep.
    private static func sweep(_ state: inout State, limit: RateLimit, now: ContinuousClock.Instant) {
        let refill = Duration.seconds(Double(limit.burst) / limit.perSecond)
        state.buckets = state.buckets.filter { now - $0.value.updated < refill }
        state.sweepAt = max(1024, state.buckets.count * 2)
    }
}
