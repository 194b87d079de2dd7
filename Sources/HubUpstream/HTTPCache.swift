import Synchronization

/// The client's HTTP cache: upstream GET responses stored by request identity, honouring
/// `Cache-Control` (`max-age`, `s-maxage`, `no-store`, `no-cache`, `private`), `Age`, `Vary: *`,
/// and revalidated with `ETag`/`Last-Modified`. Bounded by entries and body bytes, LRU.
///
/// The lock (``Locked``, a `Mutex`) owns the LRU; every operation is a short critical section with no I/O.
final class HTTPCache: Sendable {
    /// A stored response.
    struct Entry: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// Fresh strictly before this instant; stale (revalidate first) from then on.
        var freshUntil: ContinuousClock.Instant
        /// The freshness lifetime in seconds, reused when a 304 does not restate it.
        var lifetime: Int
        var etag: String?
        var lastModified: String?

        /// `freshUntil`, or nil when the entry is never fresh (only revalidated).
        var publicFreshUntil: ContinuousClock.Instant? { lifetime > 0 ? freshUntil : nil }
    }

    /// What a lookup found.
    enum Lookup {
        case fresh(Entry)
        case stale(Entry)
        case none
    }

    /// Statuses stored when the response allows it (RFC 9110 15.1 "heuristically cacheable"
    /// subset; only ever cached with an explicit lifetime or a validator).
    private static let cacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    private let lru: Locked<LRUCache<String, Entry>>

    init(maxEntries: Int, maxBytes: Int) {
        lru = Locked(LRUCache(maxEntries: maxEntries, maxCost: maxBytes))
    }

    func lookup(_ key: String, now: ContinuousClock.Instant) -> Lookup {
        guard let entry = lru.withLock({ $0.value(forKey: key) }) else { return .none }
        return now < entry.freshUntil ? .fresh(entry) : .stale(entry)
    }

    /// Stores `result` for `key` if its status and headers allow it (or drops an older entry if
    /// they forbid it). Returns the stored entry, if any.
    @discardableResult
    func store(_ result: CurlResult, forKey key: String, now: ContinuousClock.Instant) -> Entry? {
        let control = CacheControl(headers: result.headers)
        let lifetime = control.freshSeconds
        guard Self.cacheableStatuses.contains(result.status), control.isStorable,
              lifetime > 0 || control.hasValidator
        else {
            lru.withLock { $0.removeValue(forKey: key) }
            return nil
        }
        let entry = Entry(
            status: result.status, headers: result.headers, body: result.body,
            freshUntil: now.advanced(by: .seconds(lifetime)), lifetime: lifetime,
            etag: control.etag, lastModified: control.lastModified)
        put(entry, forKey: key)
        return entry
    }

    /// Applies a 304 answer to `entry`: new validators and lifetime from the 304's headers
    /// (the old lifetime when it states none), other headers updated in place. Stores and
    /// returns the refreshed entry.
    func revalidate(_ entry: Entry, with headers: [(name: String, value: String)], forKey key: String,
                    now: ContinuousClock.Instant) -> Entry {
        let control = CacheControl(headers: headers)
        var updated = entry
        let restatesLifetime = headers.contains { asciiCaseInsensitiveEquals($0.name, "cache-control") }
        updated.lifetime = restatesLifetime ? control.freshSeconds : entry.lifetime
        updated.freshUntil = now.advanced(by: .seconds(updated.lifetime))
        if let etag = control.etag { updated.etag = etag }
        if let lastModified = control.lastModified { updated.lastModified = lastModified }
        for header in headers where !asciiCaseInsensitiveEquals(header.name, "content-length") {
            if let index = updated.headers.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, header.name) }) {
                updated.headers[index].value = header.value
            }
        }
        if control.isStorable {
            put(updated, forKey: key)
        } else {
            lru.withLock { $0.removeValue(forKey: key) }
        }
        return updated
    }

    /// Conditional headers to revalidate `entry`.
    static func validators(of entry: Entry) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let etag = entry.etag { headers.append((name: "If-None-Match", value: etag)) }
        if let lastModified = entry.lastModified { headers.append((name: "If-Modified-Since", value: lastModified)) }
        return headers
    }

    var count: Int { lru.withLock { $0.count } }

    private func put(_ entry: Entry, forKey key: String) {
        let cost = entry.body.count + key.utf8.count
            + entry.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        lru.withLock { $0.setValue(entry, forKey: key, cost: cost) }
    }
}
