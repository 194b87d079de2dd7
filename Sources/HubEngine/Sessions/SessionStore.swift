import HubSync
import Synchronization

/// Live sessions by identifier, with a cap on their count and on the bytes they hold, and an
/// idle TTL. A session followed by a
/// Server-Sent Events listener is in use: it does not expire and is not evicted by sessions
/// opened and never used again. A session whose loads all failed (no view model) is withdrawn by
/// the engine (``Statistics/failed``).
///
/// Eviction is a segmented LRU (``SessionShard``): sessions used again after they were stored
/// are *protected*; new sessions, rebuilt ones and lazy tokens' first uses enter *probation*
/// and earn protection by a later use. Storing a session only ever evicts a probation session
/// nobody listens to: never a protected one, never one followed over SSE. So a flood of
/// one-shot views (or of rebuilds) evicts only its own kind. When no slot can be freed, the new
/// session is not stored at all (``insert(_:protected:now:)`` answers `false`): its token
/// creates it on a later use.
///
/// Eviction and expiry close the session (subscribers finish) and drop the store's reference,
/// so the session frees its snapshots as soon as no request holds it. The store remembers
/// recently removed identifiers (and why) for rebuild metrics.
///
/// A large store (a cap of 16 384 or more) is split into 16 shards by session identifier, each
/// with its own lock, segments and share of the cap, so concurrent requests do not serialize on
/// one lock; eviction is then per shard (identifiers are random, so the shards fill evenly).
public final class SessionStore: Sendable {
    private let shards: [Locked<SessionShard>]
    /// Each shard's share of the cap (they add up to `capacity`).
    private let shardCapacities: [Int]
    /// Each shard's share of the byte cap (they add up to `maxBytes`).
    private let shardByteCaps: [Int]
    /// The most sessions kept.
    public let capacity: Int
    /// The most bytes the sessions may hold, as they estimate it (``ViewSession/retainedBytes``):
    /// past it, probation sessions are evicted as past ``capacity``.
    public let maxBytes: Int
    /// Sessions unused for this long expire.
    public let idleTimeout: Duration
    /// How stale a session's recorded last use may be before a lookup records it again: a
    /// sixty-fourth of ``idleTimeout``, at most a second. A session served many times a second
    /// (several connections polling it, one per event loop) then writes its entry about once a
    /// second, not on every request from both loops (each write moved the entry's cache line
    /// between cores); it may expire up to this much early.
    public let lastUseGranularity: Duration

    /// The most used (protected) sessions one ``SessionOwner`` may hold; its further sessions
    /// stay in probation.
    public let protectedPerOwner: Int

    public init(
        capacity: Int = 100_000, maxBytes: Int = Int.max, idleTimeout: Duration = .seconds(1800),
        protectedPerOwner: Int = .max
    ) {
        let total = max(1, capacity)
        self.protectedPerOwner = max(1, protectedPerOwner)
        self.capacity = total
        self.maxBytes = max(1, maxBytes)
        self.idleTimeout = idleTimeout
        lastUseGranularity = min(.seconds(1), idleTimeout / 64)
        let shardCount = total >= 16_384 ? 16 : 1
        let shardCapacities = (0..<shardCount).map { index in
            total / shardCount + (index < total % shardCount ? 1 : 0)
        }
        self.shardCapacities = shardCapacities
        let byteCap = self.maxBytes
        shardByteCaps = (0..<shardCount).map { index in
            byteCap == Int.max ? Int.max : byteCap / shardCount + (index < byteCap % shardCount ? 1 : 0)
        }
        // Each table starts empty and grows by doubling: a table sized ahead of its sessions
        // costs its pages as the first sessions land on them, scattered by hash (sized for the
        // cap, about 7 KB per session for the first thousands; for 256 a shard, about 1.3 KB
        // per session for the first hundreds). A shard's growth rehashes at most its share of
        // the cap under its lock.
        let removalCapacity = max(1024, min(total, 1 << 16)) / shardCount
        // An owner's share per shard: its sessions spread evenly over the shards (random
        // identifiers), so the shares add up to about the cap.
        let ownerShare = protectedPerOwner == .max ? Int.max : (max(1, protectedPerOwner) + shardCount - 1) / shardCount
        shards = shardCapacities.map { _ in
            Locked(SessionShard(removalCapacity: removalCapacity, protectedPerOwner: ownerShare))
        }
    }

    /// The shard of an identifier: FNV-1a over its first bytes (identifiers are random).
    private func shardIndex(_ id: String) -> Int {
        guard shards.count > 1 else { return 0 }
        // FNV-1a of the first 8 bytes, read in place (a native identifier is contiguous).
        func fnv(_ bytes: some Sequence<UInt8>) -> UInt32 {
            var hash: UInt32 = 2_166_136_261
            for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            return hash
        }
        let hash = id.utf8.withContiguousStorageIfAvailable { fnv($0.prefix(8)) } ?? fnv(id.utf8.prefix(8))
        return Int(hash % UInt32(shards.count))
    }

    /// Adds a session (`protected`: straight into the protected segment). Past the cap the least
    /// recently used probation session without listeners is evicted; a protected session never
    /// is. Returns `false` when the session was not stored: no slot could be freed.
    @discardableResult
    public func insert(
        _ session: ViewSession, protected: Bool = false, owner: SessionOwner? = nil, now: ContinuousClock.Instant = .now
    ) -> Bool {
        insertIfAbsent(session, protected: protected, owner: owner, now: now).stored
    }

    /// Adds `session` unless its identifier is held already; returns the held session (the
    /// existing one, or `session`) and whether it is in the store. An `owner`'s session counts
    /// against its ``protectedPerOwner``, and when room must be made, the owner's own least
    /// recently used unused session (among the oldest few) goes first.
    public func insertIfAbsent(
        _ session: ViewSession, protected: Bool = false, owner: SessionOwner? = nil, now: ContinuousClock.Instant = .now
    ) -> (session: ViewSession, stored: Bool) {
        let ownerKey = owner?.key ?? 0
        let stamp = StoreTime(now)
        let index = shardIndex(session.id)
        let capacity = shardCapacities[index]
        let byteCap = shardByteCaps[index]
        let bytes = session.retainedBytesEstimate
        let (result, evicted): ((ViewSession, Bool), [ViewSession]) = shards[index].withLock { state in
            if let existing = state.entries[session.id] { return ((existing.session, true), []) }
            var victims: [ViewSession] = []
            while state.entries.count >= capacity || state.bytes > byteCap - bytes {
                guard
                    let victim = state.popOwnVictim(owner: ownerKey, isListenedTo: Self.isListenedTo)
                        ?? state.popVictim(isListenedTo: Self.isListenedTo, now: stamp)
                else { break }
                victims.append(victim)
                state.removals.record(victim.id, .evicted)
            }
            state.statistics.evicted += victims.count
            guard state.entries.count < capacity, state.bytes <= byteCap - bytes else {
                state.refreshCounts()
                return ((session, false), victims)
            }
            state.entries[session.id] = SessionShard.Entry(
                session: session, lastUse: stamp, tick: 0, isProtected: false, bytes: bytes, owner: ownerKey)
            state.bytes += bytes
            state.touch(session.id, at: stamp)
            if protected { state.promote(session.id, at: stamp) }
            state.statistics.created += 1
            state.refreshCounts()
            state.compact()
            return ((session, true), victims)
        }
        Self.close(evicted)
        return result
    }

    /// Records that `session` now holds `bytes` (its view changed). Past the byte cap, the least
    /// recently used probation sessions nobody listens to are evicted, as past the count cap:
    /// never a protected one, never one followed over SSE, never `session` itself. A no-op
    /// for a session the store does not hold.
    func resize(_ session: ViewSession, to bytes: Int, now: ContinuousClock.Instant = .now) {
        let index = shardIndex(session.id)
        let byteCap = shardByteCaps[index]
        let stamp = StoreTime(now)
        let evicted: [ViewSession] = shards[index].withLock { state in
            guard let entry = state.entries[session.id], entry.session === session, entry.bytes != bytes else { return [] }
            state.bytes += bytes - entry.bytes
            state.entries[session.id]!.bytes = bytes
            var victims: [ViewSession] = []
            while state.bytes > byteCap,
                let victim = state.popVictim(isListenedTo: Self.isListenedTo, now: stamp, sparing: session.id)
            {
                victims.append(victim)
                state.removals.record(victim.id, .evicted)
            }
            state.statistics.evicted += victims.count
            state.refreshCounts()
            state.compact()
            return victims
        }
        Self.close(evicted)
    }

    /// The session with this identifier, marked used (a session opened before is promoted to
    /// the protected segment); `nil` when unknown or expired.
    public func session(_ id: String, now: ContinuousClock.Instant = .now) -> ViewSession? {
        lookup(id, now: now)?.session
    }

    /// ``session(_:now:)`` with the session's published ``SettledView``, found in the same
    /// lock hold.
    func lookup(_ id: String, now: ContinuousClock.Instant = .now) -> (session: ViewSession, settled: SettledView?)? {
        let stamp = StoreTime(now)
        let (found, expired): ((ViewSession, SettledView?)?, ViewSession?) = shards[shardIndex(id)].withLock { state in
            guard let index = state.entries.index(forKey: id) else { return (nil, nil) }
            let entry = state.entries.values[index]
            if stamp - entry.lastUse >= idleTimeout, !Self.isListenedTo(entry.session) {
                _ = state.remove(id)
                state.removals.record(id, .expired)
                state.statistics.expired += 1
                state.refreshCounts()
                return (nil, entry.session)
            }
            if stamp - entry.lastUse >= lastUseGranularity { state.entries.values[index].lastUse = stamp }
            if !entry.isProtected {
                state.promote(id, at: stamp)
                state.refreshCounts()
                state.compact()
            } else if state.tick - entry.tick > UInt64(state.entries.count / 4) {
                state.touch(id, at: stamp)
                state.compact()
            }
            return ((entry.session, entry.settled), nil)
        }
        if let expired { Self.close([expired]) }
        return found
    }

    /// Replaces the ``SettledView`` published for `session` (`nil` withdraws it); returns the
    /// one replaced. A no-op returning `nil` when the store does not hold this session object.
    func replaceSettled(of session: ViewSession, with settled: SettledView?) -> SettledView? {
        shards[shardIndex(session.id)].withLock { state in
            guard let entry = state.entries[session.id], entry.session === session else { return nil }
            let replaced = entry.settled
            if replaced == nil, settled == nil { return nil }
            state.entries[session.id]!.settled = settled
            return replaced
        }
    }

    /// Why this process no longer holds `id`, when it held it recently.
    public func removalReason(_ id: String) -> RemovalReason? {
        shards[shardIndex(id)].withLock { $0.removals.reason(id) }
    }

    /// Counts a rebuild (``Statistics/rebuiltEvicted`` and the like).
    public func recordRebuild(_ id: String, reason: RebuildReason) {
        shards[shardIndex(id)].withLock { state in
            state.removals.forget(id)
            switch reason {
            case .evicted: state.statistics.rebuiltEvicted += 1
            case .expired: state.statistics.rebuiltExpired += 1
            case .unknown: state.statistics.rebuiltUnknown += 1
            }
        }
    }

    /// Ends a session; returns whether it was held. The identifier is remembered as deleted
    /// either way, so its token does not bring it back in this process.
    @discardableResult
    public func remove(_ id: String) -> Bool {
        let removed: ViewSession? = shards[shardIndex(id)].withLock { state in
            state.removals.record(id, .deleted)
            guard let entry = state.remove(id) else { return nil }
            state.statistics.ended += 1
            state.refreshCounts()
            return entry.session
        }
        if let removed { Task { await removed.close() } }
        return removed != nil
    }

    /// Takes out a session that has no view model (its loads failed, so no client was given its
    /// token); counted as `failed`, not as ended by a client. Closed when listened to, like an
    /// evicted one. Returns whether it was in the store.
    @discardableResult
    func withdraw(_ id: String) -> Bool {
        let withdrawn: ViewSession? = shards[shardIndex(id)].withLock { state in
            guard let entry = state.remove(id) else { return nil }
            state.statistics.failed += 1
            state.refreshCounts()
            return entry.session
        }
        if let withdrawn { Self.close([withdrawn]) }
        return withdrawn != nil
    }

    /// Removes every session idle past the TTL; returns how many expired. Scans each segment
    /// from its oldest record while records are older than the TTL, so a sweep costs what it
    /// removes (plus sessions used since their record, which move to the back), not the number
    /// of sessions. A request for a session checks the TTL exactly.
    @discardableResult
    public func removeExpired(now: ContinuousClock.Instant = .now) -> Int {
        var count = 0
        for shard in shards { count += removeExpired(in: shard, now: now) }
        return count
    }

    private func removeExpired(in shard: Locked<SessionShard>, now: ContinuousClock.Instant) -> Int {
        let stamp = StoreTime(now)
        let idleTimeout = self.idleTimeout
        let expired: [ViewSession] = shard.withLock { state in
            var victims: [ViewSession] = []
            let lastTick = state.tick
            for protected in [false, true] {
                while let record = protected ? state.protected.first : state.probation.first {
                    // Records are in time order: once one is younger than the TTL, all after are.
                    guard record.tick <= lastTick, stamp - record.time >= idleTimeout else { break }
                    _ = protected ? state.protected.popFirst() : state.probation.popFirst()
                    guard let entry = state.entries[record.id], entry.tick == record.tick else { continue }
                    if stamp - entry.lastUse >= idleTimeout && !Self.isListenedTo(entry.session) {
                        _ = state.remove(record.id)
                        state.removals.record(record.id, .expired)
                        victims.append(entry.session)
                    } else {
                        state.touch(record.id, at: stamp)  // used since its record, or followed over SSE
                    }
                }
            }
            state.statistics.expired += victims.count
            state.refreshCounts()
            state.compact()
            return victims
        }
        Self.close(expired)
        return expired.count
    }

    /// Current counts (summed over the shards).
    public var statistics: Statistics {
        var total = Statistics()
        for shard in shards { total.add(shard.withLock { $0.statistics }) }
        return total
    }

    /// Every live session now (a snapshot: for a config reload to visit each once).
    public func allSessions() -> [ViewSession] {
        shards.flatMap { shard in shard.withLock { $0.entries.values.map(\.session) } }
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
}
