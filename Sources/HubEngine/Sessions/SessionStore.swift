import HubSync
import Synchronization

/// Live sessions by identifier, with a cap (least recently used evicted) and an idle TTL.
/// A session followed by a Server-Sent Events listener is in use and does not expire.
///
/// Eviction and expiry close the session (subscribers finish) and drop the store's reference,
/// so the session frees its snapshots as soon as no request holds it.
public final class SessionStore: Sendable {
    /// Counts since start, for metrics.
    public struct Statistics: Sendable, Equatable {
        public var active: Int
        public var created: Int
        public var evicted: Int
        public var expired: Int
        public var ended: Int
    }

    private struct Entry {
        let session: ViewSession
        var lastUse: ContinuousClock.Instant
        var tick: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Access log for LRU: stale records (tick no longer current) are skipped.
        var order: [(id: String, tick: UInt64)] = []
        var orderStart = 0
        var tick: UInt64 = 0
        var statistics = Statistics(active: 0, created: 0, evicted: 0, expired: 0, ended: 0)
    }

    private let state = Locked(State())
    /// The most sessions kept; the least recently used goes first.
    public let capacity: Int
    /// Sessions unused for this long expire.
    public let idleTimeout: Duration

    public init(capacity: Int = 100_000, idleTimeout: Duration = .seconds(1800)) {
        self.capacity = max(1, capacity)
        self.idleTimeout = idleTimeout
    }

    /// Adds a session, evicting the least recently used past the cap.
    public func insert(_ session: ViewSession, now: ContinuousClock.Instant = .now) {
        let evicted: [ViewSession] = state.withLock { state in
            state.tick += 1
            state.entries[session.id] = Entry(session: session, lastUse: now, tick: state.tick)
            state.order.append((session.id, state.tick))
            state.statistics.created += 1
            var victims: [ViewSession] = []
            while state.entries.count > capacity, let victim = Self.popLeastRecentlyUsed(&state) {
                victims.append(victim)
            }
            state.statistics.evicted += victims.count
            state.statistics.active = state.entries.count
            Self.compactIfNeeded(&state)
            return victims
        }
        Self.close(evicted)
    }

    /// The session with this identifier, marking it used; `nil` when unknown or expired.
    public func session(_ id: String, now: ContinuousClock.Instant = .now) -> ViewSession? {
        let (found, expired): (ViewSession?, ViewSession?) = state.withLock { state in
            guard var entry = state.entries[id] else { return (nil, nil) }
            if now - entry.lastUse >= idleTimeout, !Self.isListenedTo(entry.session) {
                state.entries[id] = nil
                state.statistics.expired += 1
                state.statistics.active = state.entries.count
                return (nil, entry.session)
            }
            state.tick += 1
            entry.lastUse = now
            entry.tick = state.tick
            state.entries[id] = entry
            state.order.append((id, state.tick))
            Self.compactIfNeeded(&state)
            return (entry.session, nil)
        }
        if let expired { Self.close([expired]) }
        return found
    }

    /// Ends a session; returns whether it existed.
    @discardableResult
    public func remove(_ id: String) -> Bool {
        let removed: ViewSession? = state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id) else { return nil }
            state.statistics.ended += 1
            state.statistics.active = state.entries.count
            return entry.session
        }
        if let removed { Task { await removed.close() } }
        return removed != nil
    }

    /// Removes every session idle past the TTL; returns how many expired.
    @discardableResult
    public func removeExpired(now: ContinuousClock.Instant = .now) -> Int {
        let expired: [ViewSession] = state.withLock { state in
            var victims: [String: Entry] = [:]
            for (id, entry) in state.entries where now - entry.lastUse >= idleTimeout {
                if Self.isListenedTo(entry.session) {
                    // A Server-Sent Events listener keeps its session in use.
                    state.entries[id]!.lastUse = now
                } else {
                    victims[id] = entry
                }
            }
            for id in victims.keys { state.entries[id] = nil }
            state.statistics.expired += victims.count
            state.statistics.active = state.entries.count
            return victims.values.map(\.session)
        }
        Self.close(expired)
        return expired.count
    }

    /// Current counts.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Number of live sessions.
    public var count: Int { state.withLock { $0.entries.count } }

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

    private static func popLeastRecentlyUsed(_ state: inout State) -> ViewSession? {
        while state.orderStart < state.order.count {
            let record = state.order[state.orderStart]
            state.orderStart += 1
            if let entry = state.entries[record.id], entry.tick == record.tick {
                state.entries[record.id] = nil
                return entry.session
            }
        }
        return nil
    }

    /// Drops consumed and stale access records once they outnumber live sessions.
    private static func compactIfNeeded(_ state: inout State) {
        guard state.order.count > 1024, state.order.count > 4 * state.entries.count else { return }
        state.order = state.order[state.orderStart...].filter { state.entries[$0.id]?.tick == $0.tick }
        state.orderStart = 0
    }
}
