import HubSync

/// Session identifiers whose tokens were revoked (`DELETE /view`), each kept until its token
/// would have expired anyway: the list is exact (a revoked token is never rebuilt in this
/// process while it could verify) and bounded by the token lifetime, not by a count. Only
/// verified tokens are recorded, so a client cannot fill it with forgeries.
///
/// Entries sit in hourly buckets by expiry, so pruning drops whole buckets: O(entries pruned).
final class RevokedTokens: Sendable {
    private struct State {
        var expiries: [String: Int64] = [:]
        /// Expiry hour -> identifiers expiring in it.
        var buckets: [Int64: [String]] = [:]
        var oldestBucket: Int64 = .max
    }

    private let state = Locked(State())

    /// Revokes `id` until `expiry` (seconds since the epoch).
    func revoke(_ id: String, until expiry: Int64) {
        let bucket = expiry / 3600
        state.withLock { state in
            guard state.expiries.updateValue(expiry, forKey: id) == nil else { return }
            state.buckets[bucket, default: []].append(id)
            state.oldestBucket = min(state.oldestBucket, bucket)
        }
    }

    /// Takes `id` off the list (a revocation kept during an outage that turned out to name no
    /// stored session: it is forgotten). Its bucket keeps the identifier until it is pruned.
    func forget(_ id: String) {
        state.withLock { _ = $0.expiries.removeValue(forKey: id) }
    }

    /// Whether `id` is revoked at `now`.
    func isRevoked(_ id: String, now: Int64) -> Bool {
        state.withLock { state in
            guard let expiry = state.expiries[id] else { return false }
            return now < expiry
        }
    }

    /// Forgets entries whose tokens have expired by `now`; returns how many.
    @discardableResult
    func prune(now: Int64) -> Int {
        let currentBucket = now / 3600
        return state.withLock { state in
            var removed = 0
            while state.oldestBucket < currentBucket {
                for id in state.buckets.removeValue(forKey: state.oldestBucket) ?? [] {
                    state.expiries[id] = nil
                    removed += 1
                }
                state.oldestBucket = state.buckets.keys.min() ?? .max
            }
            return removed
        }
    }

    /// Identifiers revoked now.
    var count: Int { state.withLock { $0.expiries.count } }
}
