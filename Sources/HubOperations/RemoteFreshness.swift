import HubPrimitives
import HubSync

/// Which remote URLs currently have a fresh upstream response, and a fingerprint of it,
/// shared by every session: a remote operation whose response is fresh is deterministic,
/// so its chain can be memoized (DESIGN.md "Performance").
package final class RemoteFreshness: Sendable {
    private struct Entry {
        package let freshUntil: ContinuousClock.Instant
        package let fingerprint: UInt64
    }

    private let entries = Locked<[String: Entry]>([:])
    private let capacity: Int
    /// The upstream client's clock: freshness is measured as its cache measures it.
    private let now: @Sendable () -> ContinuousClock.Instant

    package init(capacity: Int = 10_000, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.capacity = capacity
        self.now = now
    }

    /// The fingerprint of `url`'s response while it is fresh.
    package func fingerprint(for url: String) -> UInt64? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[url] else { return nil }
            guard entry.freshUntil > now else {
                entries[url] = nil
                return nil
            }
            return entry.fingerprint
        }
    }

    /// Records a response that stays fresh until `freshUntil`.
    package func record(url: String, body: [UInt8], freshUntil: ContinuousClock.Instant?) {
        let now = now()
        guard let freshUntil, freshUntil > now else {
            entries.withLock { _ = $0.removeValue(forKey: url) }
            return
        }
        let fingerprint = Self.fnv1a(body)
        entries.withLock { entries in
            if entries.count >= capacity, entries[url] == nil {
                entries = entries.filter { $0.value.freshUntil > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[url] = Entry(freshUntil: freshUntil, fingerprint: fingerprint)
        }
    }

    /// Forgets the URLs `matches` selects (an invalidation): chains that use them are not
    /// memoized until they are fetched again, and what was memoized under their fingerprint no
    /// longer answers (``MemoKeyChecks``).
    package func forget(where matches: (_ url: String) -> Bool) {
        entries.withLock { entries in
            for url in entries.keys where matches(url) { entries[url] = nil }
        }
    }

    package static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        FNV1a.hash(bytes)
    }
}
