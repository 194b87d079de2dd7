import HubEngine
import HubSync
import HubUpstream

/// The last good content of `remote` GET operations that may serve it stale (RFC 5861:
/// `staleIfErrorSeconds`/`stale-if-error`, `staleWhileRevalidateSeconds`/
/// `stale-while-revalidate`), shared by every session, by fetch identity (the URL, plus a
/// SHA-256 of forwarded caller headers: never the values themselves).
///
/// Bounded by entries and by body bytes (the oldest quarter goes when either is passed). Also
/// keeps, per entry, the sessions that were answered from it (``ActionPerformer``s, which hold
/// their session weakly, at most ``maximumWaiters`` per entry): when good content arrives again
/// they reload, so a view followed over SSE moves to the fresh content. At most one background
/// refresh runs per entry (``beginRefresh(_:)``).
package final class StaleContentStore: Sendable {
    /// What one operation's config says; nil leaves it to the upstream's `Cache-Control`.
    package struct Policy: Sendable, Equatable {
        package var ifErrorSeconds: Int?
        package var whileRevalidateSeconds: Int?

        package init(ifErrorSeconds: Int?, whileRevalidateSeconds: Int?) {
            self.ifErrorSeconds = ifErrorSeconds
            self.whileRevalidateSeconds = whileRevalidateSeconds
        }

        /// True when the config turns neither on (the upstream still may).
        package var isUnset: Bool { ifErrorSeconds == nil && whileRevalidateSeconds == nil }
    }

    /// Content served stale: the body and how old it is.
    package struct Served: Sendable {
        package let body: [UInt8]
        package let ageSeconds: Int
    }

    private struct Entry {
        package var body: [UInt8]
        /// When the upstream last confirmed this body.
        package var receivedAt: ContinuousClock.Instant
        /// Fresh strictly before this instant (`receivedAt` when the upstream gave no lifetime).
        package var freshUntil: ContinuousClock.Instant
        package var ifErrorSeconds: Int
        package var whileRevalidateSeconds: Int
        package var waiters: [ActionPerformer] = []
        package var refreshing = false
        /// Set when good content arrived while sessions waited: they reload now, and take this
        /// body until then instead of asking the upstream once each (``reusable(_:)``).
        package var reuseUntil: ContinuousClock.Instant?
    }

    private struct State {
        package var entries: [String: Entry] = [:]
        package var bytes = 0
        package var closed = false
    }

    /// Most sessions remembered per entry for a reload when the content recovers.
    package static let maximumWaiters = 1024

    /// How long the sessions reloading after good content arrived take it from here.
    package static let reuseWindow = Duration.seconds(1)

    private let state = Locked(State())
    private let clock: UpstreamClock
    package let maximumEntries: Int
    package let maximumBytes: Int

    package init(clock: UpstreamClock, maximumEntries: Int, maximumBytes: Int) {
        self.clock = clock
        self.maximumEntries = max(1, maximumEntries)
        self.maximumBytes = max(1, maximumBytes)
    }

    /// The current instant of the upstream clock (what every window is measured with).
    package var now: ContinuousClock.Instant { clock.now() }

    /// Entries and body bytes held now.
    package var usage: (entries: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }

    /// Records `body` as `key`'s last good content, confirmed by the upstream now (`confirmed`;
    /// a fresh cache hit keeps the time already recorded). Nothing is kept when neither the
    /// config nor the upstream allows stale serving, or the upstream said `no-store`. Returns
    /// the sessions that were waiting for good content: the caller reloads them.
    package func recordGood(
        _ key: String, body: [UInt8], response: UpstreamResponse, policy: Policy, confirmed: Bool
    ) -> [ActionPerformer] {
        let directives = response.staleDirectives
        let ifError = policy.ifErrorSeconds ?? directives.ifError ?? 0
        let whileRevalidate = policy.whileRevalidateSeconds ?? directives.whileRevalidate ?? 0
        let now = clock.now()
        return state.withLock { state -> [ActionPerformer] in
            let old = state.entries.removeValue(forKey: key)
            if let old { state.bytes -= old.body.count }
            guard ifError > 0 || whileRevalidate > 0, !directives.noStore, !state.closed,
                body.count <= maximumBytes / 2
            else { return old?.waiters ?? [] }
            let receivedAt = !confirmed && old?.body == body ? old!.receivedAt : now
            let freshUntil = max(response.freshUntil ?? receivedAt, receivedAt)
            let waited = !(old?.waiters.isEmpty ?? true)
            state.entries[key] = Entry(
                body: body, receivedAt: receivedAt, freshUntil: freshUntil, ifErrorSeconds: ifError,
                whileRevalidateSeconds: whileRevalidate, refreshing: old?.refreshing ?? false,
                reuseUntil: waited ? now.advanced(by: Self.reuseWindow) : old?.reuseUntil)
            state.bytes += body.count
            if state.entries.count > maximumEntries || state.bytes > maximumBytes { evict(&state) }
            return old?.waiters ?? []
        }
    }

    /// `key`'s content just after it arrived for waiting sessions (``reuseWindow``): fresh, so
    /// the sessions reloading for it do not each go upstream again (nor start another refresh).
    package func reusable(_ key: String) -> [UInt8]? {
        let now = clock.now()
        return state.withLock { state -> [UInt8]? in
            guard let entry = state.entries[key], let until = entry.reuseUntil, now < until else { return nil }
            return entry.body
        }
    }

    /// `key`'s content when it is past its freshness and within its revalidate window: served
    /// at once while a refresh runs in the background.
    package func whileRevalidating(_ key: String) -> Served? {
        let now = clock.now()
        return state.withLock { state -> Served? in
            guard let entry = state.entries[key], entry.whileRevalidateSeconds > 0, now >= entry.freshUntil,
                now < entry.freshUntil.advanced(by: .seconds(entry.whileRevalidateSeconds))
            else { return nil }
            return Served(body: entry.body, ageSeconds: Self.seconds(from: entry.receivedAt, to: now))
        }
    }

    /// `key`'s content when its upstream just failed and it is within its error window
    /// (freshness plus `stale-if-error`); `waiter` is reloaded when good content arrives.
    package func ifError(_ key: String, waiter: ActionPerformer?) -> Served? {
        let now = clock.now()
        return state.withLock { state -> Served? in
            guard var entry = state.entries[key], entry.ifErrorSeconds > 0,
                now < entry.freshUntil.advanced(by: .seconds(entry.ifErrorSeconds))
            else { return nil }
            if let waiter {
                if entry.waiters.count >= Self.maximumWaiters { entry.waiters.removeFirst() }
                entry.waiters.append(waiter)
                state.entries[key] = entry
            }
            return Served(body: entry.body, ageSeconds: Self.seconds(from: entry.receivedAt, to: now))
        }
    }

    /// Adds `waiter` to `key`'s sessions reloaded when good content arrives.
    package func wait(_ key: String, waiter: ActionPerformer) {
        state.withLock { state in
            guard state.entries[key] != nil else { return }
            if state.entries[key]!.waiters.count >= Self.maximumWaiters { state.entries[key]!.waiters.removeFirst() }
            state.entries[key]!.waiters.append(waiter)
        }
    }

    /// True when the caller may start `key`'s one background refresh (none is running, the store
    /// is open); it must call ``endRefresh(_:)`` when done.
    package func beginRefresh(_ key: String) -> Bool {
        state.withLock { state in
            guard !state.closed, let entry = state.entries[key], !entry.refreshing else { return false }
            state.entries[key]!.refreshing = true
            return true
        }
    }

    package func endRefresh(_ key: String) {
        state.withLock { state in state.entries[key]?.refreshing = false }
    }

    /// Whether a failed background retry should try again: the store is open, the entry is still
    /// within its error window and some session waits for it.
    package func shouldRetry(_ key: String) -> Bool {
        let now = clock.now()
        return state.withLock { state in
            guard !state.closed, let entry = state.entries[key], !entry.waiters.isEmpty else { return false }
            return now < entry.freshUntil.advanced(by: .seconds(entry.ifErrorSeconds))
        }
    }

    /// Drops the entries whose URL (``RemoteOperation/url(ofFetchKey:)``: the key without the
    /// locale, default lifetime or forwarded-header fingerprint lines) `matches` selects (an
    /// invalidation); returns how many. Sessions waiting
    /// for good content are reloaded by the invalidation itself.
    package func forget(where matches: (_ url: String) -> Bool) -> Int {
        state.withLock { state in
            var dropped = 0
            for (key, entry) in state.entries where matches(RemoteOperation.url(ofFetchKey: key)) {
                state.entries[key] = nil
                state.bytes -= entry.body.count
                dropped += 1
            }
            return dropped
        }
    }

    /// Drops everything and refuses new entries and refreshes (the server is shutting down).
    package func close() {
        state.withLock { state in
            state.closed = true
            state.entries.removeAll()
            state.bytes = 0
        }
    }

    /// Drops the least recently confirmed entries until three quarters of both bounds are left.
    private func evict(_ state: inout State) {
        let targetCount = max(1, maximumEntries / 4 * 3)
        let targetBytes = maximumBytes / 4 * 3
        for (key, entry) in state.entries.sorted(by: { $0.value.receivedAt < $1.value.receivedAt }) {
            guard state.entries.count > targetCount || state.bytes > targetBytes else { break }
            state.entries[key] = nil
            state.bytes -= entry.body.count
        }
    }

    /// Whole seconds from `start` to `end` (0 when `end` is earlier).
    package static func seconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Int {
        max(0, Int(start.duration(to: end).components.seconds))
    }
}
