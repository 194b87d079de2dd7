import HubSync
import Synchronization

/// Live sessions by identifier, with a cap (least recently used evicted) and an idle TTL.
/// A session followed by a Server-Sent Events listener is in use and does not expire. A session
/// whose loads all failed (no view model) is withdrawn by the engine (``Statistics/failed``).
///
/// Eviction and expiry close the session (subscribers finish) and drop the store's reference,
/// so the session frees its snapshots as soon as no request holds it.
///
/// A large store (a cap of 16 384 or more) is split into 16 shards by session identifier, each
/// with its own lock, LRU and share of the cap, so concurrent requests do not serialize on one
/// lock; eviction is then least recently used within the new session's shard (identifiers are
/// random, so the shards fill evenly). Smaller stores are one shard: exact LRU.
public final class SessionStore: Sendable {
    /// Counts since start, for metrics.
    public struct Statistics: Sendable, Equatable {
        public var active: Int
        public var created: Int
        public var evicted: Int
        public var expired: Int
        public var ended: Int
        /// Sessions taken out because their first load produced no view model.
        public var failed: Int
    }

    private struct Entry {
        let session: ViewSession
        var lastUse: ContinuousClock.Instant
        var tick: UInt64
    }

    /// A session's place in the eviction order, appended when it was inserted or given a
    /// second chance.
    private struct Record {
        let id: String
        let tick: UInt64
        let time: ContinuousClock.Instant
    }

    /// LRU by an append-only log of records: the front is the least recently used. A use
    /// updates `lastUse` and appends a fresh record only when the session's record is older
    /// than the newest quarter of the log (exact for small stores; for large ones it bounds
    /// stale records, so a hot session does not grow the log per request). Eviction pops the
    /// front; expiry scans from the front and stops at the first record still in use.
    private struct State {
        var entries: [String: Entry] = [:]
        /// Records in append order; stale ones (tick no longer the entry's) are skipped.
        var order = RingQueue<Record>()
        var tick: UInt64 = 0
        var statistics = Statistics(active: 0, created: 0, evicted: 0, expired: 0, ended: 0, failed: 0)

        mutating func append(_ id: String, at time: ContinuousClock.Instant) {
            tick += 1
            entries[id]?.tick = tick
            order.append(Record(id: id, tick: tick, time: time))
        }

        /// Drops stale records once the log holds four times more records than sessions
        /// (amortized O(1) per append). Consumed records leave the ring one at a time.
        mutating func compact() {
            if order.count > 1024, order.count > 4 * entries.count {
                let entries = self.entries
                order.retain { entries[$0.id]?.tick == $0.tick }
            }
        }
    }

    private let shards: [Locked<State>]
    /// Each shard's share of the cap (they add up to `capacity`).
    private let shardCapacities: [Int]
    /// The most sessions kept; the least recently used goes first.
    public let capacity: Int
    /// Sessions unused for this long expire.
    public let idleTimeout: Duration

    public init(capacity: Int = 100_000, idleTimeout: Duration = .seconds(1800)) {
        let total = max(1, capacity)
        self.capacity = total
        self.idleTimeout = idleTimeout
        let shardCount = total >= 16_384 ? 16 : 1
        let shardCapacities = (0..<shardCount).map { index in
            total / shardCount + (index < total % shardCount ? 1 : 0)
        }
        self.shardCapacities = shardCapacities
        // Each table is sized for its cap up front (up to a million sessions in all): growing it
        // rehashes every session under the lock, which stalled all requests for tens of
        // milliseconds as the store filled. Pages are only touched as sessions arrive.
        shards = shardCapacities.map { shardCapacity in
            var state = State()
            state.entries.reserveCapacity(min(shardCapacity, (1 << 20) / shardCount))
            return Locked(state)
        }
    }

    /// The shard of an identifier: FNV-1a over its first bytes (identifiers are random).
    private func shardIndex(_ id: String) -> Int {
        guard shards.count > 1 else { return 0 }
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8.prefix(8) {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return Int(hash % UInt32(shards.count))
    }

    /// Adds a session, evicting the least recently used past the cap.
    public func insert(_ session: ViewSession, now: ContinuousClock.Instant = .now) {
        let index = shardIndex(session.id)
        let capacity = shardCapacities[index]
        let evicted: [ViewSession] = shards[index].withLock { state in
            state.entries[session.id] = Entry(session: session, lastUse: now, tick: 0)
            state.append(session.id, at: now)
            state.statistics.created += 1
            var victims: [ViewSession] = []
            while state.entries.count > capacity, let victim = Self.popLeastRecentlyUsed(&state) {
                victims.append(victim)
            }
            state.statistics.evicted += victims.count
            state.statistics.active = state.entries.count
            state.compact()
            return victims
        }
        Self.close(evicted)
    }

    /// The session with this identifier, marking it used; `nil` when unknown or expired.
    public func session(_ id: String, now: ContinuousClock.Instant = .now) -> ViewSession? {
        let (found, expired): (ViewSession?, ViewSession?) = shards[shardIndex(id)].withLock { state in
            guard var entry = state.entries[id] else { return (nil, nil) }
            if now - entry.lastUse >= idleTimeout, !Self.isListenedTo(entry.session) {
                state.entries[id] = nil
                state.statistics.expired += 1
                state.statistics.active = state.entries.count
                return (nil, entry.session)
            }
            entry.lastUse = now
            state.entries[id] = entry
            if state.tick - entry.tick > UInt64(state.entries.count / 4) {
                state.append(id, at: now)
                state.compact()
            }
            return (entry.session, nil)
        }
        if let expired { Self.close([expired]) }
        return found
    }

    /// Ends a session; returns whether it existed.
    @discardableResult
    public func remove(_ id: String) -> Bool {
        let removed: ViewSession? = shards[shardIndex(id)].withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            state.statistics.ended += 1
            state.statistics.active = state.entries.count
            return entry.session
        }
        if let removed { Task { await removed.close() } }
        return removed != nil
    }

    /// Takes out a session that has no view model (its loads failed, so no client was given its
    /// id); counted as `failed`, not as ended by a client. Closed when listened to, like an
    /// evicted one. Returns whether it was in the store.
    @discardableResult
    func withdraw(_ id: String) -> Bool {
        let withdrawn: ViewSession? = shards[shardIndex(id)].withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            state.statistics.failed += 1
            state.statistics.active = state.entries.count
            return entry.session
        }
        if let withdrawn { Self.close([withdrawn]) }
        return withdrawn != nil
    }

    /// Removes every session idle past the TTL; returns how many expired. Scans from the
    /// oldest record while records are older than the TTL, so a sweep costs what it removes
    /// (plus sessions used since their record, which move to the back), not the number of
    /// sessions. A session moved back is looked at again within one more TTL; a request for
    /// it checks the TTL exactly.
    @discardableResult
    public func removeExpired(now: ContinuousClock.Instant = .now) -> Int {
        var count = 0
        for shard in shards { count += removeExpired(in: shard, now: now) }
        return count
    }

    private func removeExpired(in shard: Locked<State>, now: ContinuousClock.Instant) -> Int {
        let expired: [ViewSession] = shard.withLock { state in
            var victims: [ViewSession] = []
            let lastTick = state.tick
            while let record = state.order.first {
                // Records are in time order: once one is younger than the TTL, all after are.
                guard record.tick <= lastTick, now - record.time >= idleTimeout else { break }
                _ = state.order.popFirst()
                guard let entry = state.entries[record.id], entry.tick == record.tick else { continue }
                if now - entry.lastUse >= idleTimeout && !Self.isListenedTo(entry.session) {
                    state.entries[record.id] = nil
                    victims.append(entry.session)
                } else {
                    // Used since its record, or followed over SSE (in use).
                    state.append(record.id, at: now)
                }
            }
            state.statistics.expired += victims.count
            state.statistics.active = state.entries.count
            state.compact()
            return victims
        }
        Self.close(expired)
        return expired.count
    }

    /// Current counts (summed over the shards).
    public var statistics: Statistics {
        var total = Statistics(active: 0, created: 0, evicted: 0, expired: 0, ended: 0, failed: 0)
        for shard in shards {
            let counts = shard.withLock { $0.statistics }
            total.active += counts.active
            total.created += counts.created
            total.evicted += counts.evicted
            total.expired += counts.expired
            total.ended += counts.ended
            total.failed += counts.failed
        }
        return total
    }

    /// Number of live sessions.
    public var count: Int { shards.reduce(0) { $0 + $1.withLock { $0.entries.count } } }

    /// `true` while a Server-Sent Events stream follows the session: it is in use.
    private static func isListenedTo(_ session: ViewSession) -> Bool {
        session.subscriberGauge.load(ordering: .relaxed) > 0
    }

    /// Ends sessions that leave the store. Only sessions with subscribers need the actor (to
    /// finish their streams); the rest free everything when their last reference goes.
    private static func close(_ sessions: [ViewSession]) {
        for session in sessions where isListenedTo(session) {
            Task { await session.close() }
        }
    }

    /// The least recently used session, removed (stale records skipped).
    private static func popLeastRecentlyUsed(_ state: inout State) -> ViewSession? {
        while let record = state.order.popFirst() {
            guard let entry = state.entries[record.id], entry.tick == record.tick else { continue }
            state.entries[record.id] = nil
            return entry.session
        }
        return nil
    }
}
