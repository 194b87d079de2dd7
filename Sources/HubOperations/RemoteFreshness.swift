import HubPrimitives
import HubSync
import Synchronization

/// Which remote URLs currently have a fresh upstream response, and a fingerprint of it,
/// shared by every session: a remote operation whose response is fresh is deterministic,
/// so its chain can be memoized (DESIGN.md "Performance").
package final class RemoteFreshness: Sendable {
    private struct Entry {
        package let freshUntil: ContinuousClock.Instant
        package let fingerprint: UInt64
    }

    private let entries = Locked<[String: Entry]>([:])
    /// Counts the changes to ``entries`` (each made under its lock): a check made by
    /// ``validity(for:)`` that sees no change since it was made knows its entry is the same
    /// without taking the lock or hashing the URL.
    private let changes = Atomic<UInt64>(0)
    private let capacity: Int
    /// The upstream client's clock: freshness is measured as its cache measures it.
    private let now: @Sendable () -> ContinuousClock.Instant

    package init(capacity: Int = 10_000, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.capacity = capacity
        self.now = now
    }

    /// The fingerprint of `url`'s response while it is fresh.
    package func fingerprint(for url: String) -> UInt64? {
        freshEntry(for: url)?.fingerprint
    }

    /// `url`'s entry while it is fresh; an expired one is removed.
    private func freshEntry(for url: String) -> Entry? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[url] else { return nil }
            guard entry.freshUntil > now else {
                entries[url] = nil
                changes.add(1, ordering: .releasing)
                return nil
            }
            return entry
        }
    }

    /// A check that `url`'s response is still the one fresh now (the same fingerprint, still
    /// fresh), or nil when none is: what a memoized chain's key is valid while. Every recalled
    /// open runs it, so while nothing was recorded or forgotten since it last looked it reads
    /// one atomic counter and the clock; after a change it looks the entry up as
    /// ``fingerprint(for:)`` does, and when the entry is the one it knows (another URL changed)
    /// it goes back to reading the counter.
    package func validity(for url: String) -> (@Sendable () -> Bool)? {
        reading(url)?.isValid
    }

    /// `url`'s fresh response's fingerprint (``fingerprint(for:)``) and the check that it is
    /// still the one fresh (``validity(for:)``), from one look at the entry: the check is the
    /// fingerprint's own. Nil when no response is fresh.
    package func reading(_ url: String) -> (fingerprint: UInt64, isValid: @Sendable () -> Bool)? {
        let now = now()
        let found: (entry: Entry, seen: UInt64)? = entries.withLock { entries in
            guard let entry = entries[url], entry.freshUntil > now else { return nil }
            return (entry, changes.load(ordering: .relaxed))
        }
        guard let (entry, seen) = found else { return nil }
        let lastSeen = Atomic<UInt64>(seen)
        return (entry.fingerprint, { [self] in
            let observed = changes.load(ordering: .acquiring)
            if observed == lastSeen.load(ordering: .relaxed) { return self.now() < entry.freshUntil }
            guard let current = freshEntry(for: url), current.fingerprint == entry.fingerprint else { return false }
            // Read before the lookup: a change made since is seen by the next check.
            if current.freshUntil == entry.freshUntil { lastSeen.store(observed, ordering: .relaxed) }
            return true
        })
    }

    /// Records a response that stays fresh until `freshUntil`.
    package func record(url: String, body: [UInt8], freshUntil: ContinuousClock.Instant?) {
        let now = now()
        guard let freshUntil, freshUntil > now else {
            entries.withLock { entries in
                if entries.removeValue(forKey: url) != nil { changes.add(1, ordering: .releasing) }
            }
            return
        }
        let fingerprint = Self.fnv1a(body)
        entries.withLock { entries in
            if entries.count >= capacity, entries[url] == nil {
                entries = entries.filter { $0.value.freshUntil > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[url] = Entry(freshUntil: freshUntil, fingerprint: fingerprint)
            changes.add(1, ordering: .releasing)
        }
    }

    /// Forgets the URLs `matches` selects (an invalidation), each entry asked by its URL
    /// (``RemoteOperation/url(ofFetchKey:)``, without the locale or default lifetime its key
    /// adds): chains that use them are not
    /// memoized until they are fetched again, and what was memoized under their fingerprint no
    /// longer answers (``MemoKeyChecks``).
    package func forget(where matches: (_ url: String) -> Bool) {
        entries.withLock { entries in
            for key in entries.keys where matches(RemoteOperation.url(ofFetchKey: key)) { entries[key] = nil }
            changes.add(1, ordering: .releasing)
        }
    }

    package static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        FNV1a.hash(bytes)
    }
}
