import HubPrimitives
import HubSync
import Synchronization

/// The client's HTTP cache: upstream GET responses stored by request identity, honouring
/// `Cache-Control` (`max-age`, `s-maxage`, `no-store`, `no-cache`, `private`), `Expires`, `Date`,
/// `Age`, `Vary` (``VaryRule``), and revalidated with `ETag`/`Last-Modified`; a `200` that states no
/// lifetime is fresh for the request's ``UpstreamRequest/defaultMaxAge``, if any. Bounded by entries and body
/// bytes, LRU. A successful unsafe request invalidates what is stored for its target URI
/// (``invalidate(afterUnsafeRequestTo:responseHeaders:)``, RFC 9111 4.4).
///
/// The lock (``Locked``, a `Mutex`) owns the LRU and its index by target URI; every operation
/// is a short critical section with no I/O.
final class HTTPCache: Sendable {
    /// A stored response.
    struct Entry: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// Fresh strictly before this instant; stale (revalidate first) from then on.
        var freshUntil: ContinuousClock.Instant
        /// Seconds the response was fresh for when stored (lifetime minus age), reused when a
        /// 304 does not restate it.
        var lifetime: Int
        /// The normalized target URI (``TargetURI/text``) the response was fetched from.
        var target: String
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
    /// subset; only ever cached with an explicit lifetime, a validator, or for a `200` the
    /// request's ``UpstreamRequest/defaultMaxAge``).
    private static let cacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The stored responses and, for invalidation, their cache keys by target URI.
    private struct State {
        var entries: LRUCache<String, Entry>
        var keysByTarget: [String: [String]] = [:]
        /// Evictions so far (``HTTPCache/evict(where:)``): a fetch that began before one may
        /// bring back what it evicted, so it stores nothing (``evictions``).
        var evictions: UInt64 = 0

        /// Stores or replaces `entry` (evicting past the bounds) and keeps the index in step.
        mutating func put(_ entry: Entry, forKey key: String, cost: Int) {
            let removed = entries.setValue(entry, forKey: key, cost: cost)
            if entries.contains(key), !(keysByTarget[entry.target]?.contains(key) ?? false) {
                keysByTarget[entry.target, default: []].append(key)
            }
            for (removedKey, removedEntry) in removed { unindex(removedKey, target: removedEntry.target) }
        }

        mutating func remove(_ key: String) {
            guard let entry = entries.removeValue(forKey: key) else { return }
            unindex(key, target: entry.target)
        }

        /// Removes every entry stored for `target`.
        mutating func removeAll(target: String) {
            guard let keys = keysByTarget.removeValue(forKey: target) else { return }
            for key in keys { entries.removeValue(forKey: key) }
        }

        private mutating func unindex(_ key: String, target: String) {
            guard var keys = keysByTarget[target], let position = keys.firstIndex(of: key) else { return }
            keys.remove(at: position)
            keysByTarget[target] = keys.isEmpty ? nil : keys
        }
    }

    private let state: Locked<State>

    init(maxEntries: Int, maxBytes: Int) {
        state = Locked(State(entries: LRUCache(maxEntries: maxEntries, maxCost: maxBytes)))
    }

    func lookup(_ key: String, now: ContinuousClock.Instant) -> Lookup {
        guard let entry = state.withLock({ $0.entries.value(forKey: key) }) else { return .none }
        return now < entry.freshUntil ? .fresh(entry) : .stale(entry)
    }

    /// Stores `result`, fetched from `url`, for `key` if its status and headers allow it (or
    /// drops an older entry if they forbid it). `sent` is when the request went out, `received`
    /// when the response arrived. Returns the stored entry, if any.
    /// `since`: the ``evictions`` count when the fetch began; when an eviction came meanwhile
    /// the response may be what it evicted (fetched before the change at the source), so it is
    /// not stored and nil is returned. `defaultLifetime`: a `200` that states no lifetime gets
    /// this one (``UpstreamRequest/defaultMaxAge``).
    @discardableResult
    func store(_ result: CurlResult, forKey key: String, url: String,
               sent: ContinuousClock.Instant, received: ContinuousClock.Instant, wallSeconds: Int,
               since: UInt64? = nil, defaultLifetime: Int? = nil) -> Entry? {
        let control = CacheControl(headers: result.headers)
        let lifetime = Self.freshSeconds(
            control, sent: sent, received: received, wallSeconds: wallSeconds,
            defaultLifetime: result.status == 200 ? defaultLifetime : nil)
        guard Self.cacheableStatuses.contains(result.status), control.isStorable,
              lifetime > 0 || control.hasValidator
        else {
            state.withLock { $0.remove(key) }
            return nil
        }
        let entry = Entry(
            status: result.status, headers: result.headers, body: result.body,
            freshUntil: received.advanced(by: .seconds(lifetime)), lifetime: lifetime,
            target: TargetURI(url)?.text ?? url,
            etag: control.etag, lastModified: control.lastModified)
        return put(entry, forKey: key, since: since) ? entry : nil
    }

    /// Applies a 304 answer to `entry`: new validators and lifetime from the 304's headers
    /// (the old lifetime when it has neither `Cache-Control` nor `Expires`), other headers
    /// updated in place. Stores and returns the refreshed entry.
    /// `since` and `defaultLifetime` as in
    /// ``store(_:forKey:url:sent:received:wallSeconds:since:defaultLifetime:)``: after an eviction
    /// the refreshed entry answers this request but is not kept.
    func revalidate(_ entry: Entry, with headers: [(name: String, value: String)], forKey key: String,
                    sent: ContinuousClock.Instant, received: ContinuousClock.Instant, wallSeconds: Int,
                    since: UInt64? = nil, defaultLifetime: Int? = nil) -> Entry {
        let control = CacheControl(headers: headers)
        var updated = entry
        let restatesLifetime = headers.contains {
            $0.name.asciiCaseInsensitiveEquals("cache-control") || $0.name.asciiCaseInsensitiveEquals("expires")
        }
        updated.lifetime = restatesLifetime
            ? Self.freshSeconds(
                control, sent: sent, received: received, wallSeconds: wallSeconds,
                defaultLifetime: entry.status == 200 ? defaultLifetime : nil)
            : entry.lifetime
        updated.freshUntil = received.advanced(by: .seconds(updated.lifetime))
        if let etag = control.etag { updated.etag = etag }
        if let lastModified = control.lastModified { updated.lastModified = lastModified }
        for header in headers where !header.name.asciiCaseInsensitiveEquals("content-length") {
            if let index = updated.headers.firstIndex(where: { $0.name.asciiCaseInsensitiveEquals(header.name) }) {
                updated.headers[index].value = header.value
            }
        }
        if control.isStorable {
            put(updated, forKey: key, since: since)
        } else {
            state.withLock { $0.remove(key) }
        }
        return updated
    }

    /// Invalidates after a non-error (2xx or 3xx) response to an unsafe request to `url`
    /// (RFC 9111 4.4): drops every response stored for that target URI, whatever its request
    /// headers, and for the URI references in `Location` and `Content-Location` when they are
    /// same-origin (relative ones are resolved against `url`).
    func invalidate(afterUnsafeRequestTo url: String, responseHeaders: [(name: String, value: String)]) {
        var targets: [String] = []
        if let target = TargetURI(url) {
            targets.append(target.text)
            for header in responseHeaders where header.name.asciiCaseInsensitiveEquals("location")
                || header.name.asciiCaseInsensitiveEquals("content-location") {
                if let named = target.resolving(header.value), named.isSameOrigin(as: target) {
                    targets.append(named.text)
                }
            }
        } else {
            targets.append(url)
        }
        state.withLock { state in
            for target in targets { state.removeAll(target: target) }
        }
    }

    /// Drops every entry `matches` selects, given the URL it was requested with (and, for a
    /// second chance, its normalized target URI) and its content tags; returns how many.
    func evict(where matches: (_ url: String, _ tags: [String]) -> Bool) -> Int {
        state.withLock { state in
            state.evictions &+= 1
            var victims: [String] = []
            for (target, keys) in state.keysByTarget {
                for key in keys {
                    guard let entry = state.entries.peek(key) else { continue }
                    let tags = UpstreamResponse.contentTags(in: entry.headers)
                    if matches(Self.requestURL(ofKey: key), tags) || matches(target, tags) { victims.append(key) }
                }
            }
            for key in victims { state.remove(key) }
            return victims.count
        }
    }

    /// The URL of a cache key (``UpstreamRequest/cacheKey``): after the method and redirect
    /// policy, up to the first header line.
    static func requestURL(ofKey key: String) -> String {
        var rest = Substring(key)
        if let space = rest.firstIndex(of: " ") { rest = rest[rest.index(after: space)...] }
        if rest.hasPrefix("follow ") { rest = rest.dropFirst("follow ".count) }
        return String(rest.prefix { $0 != "\n" })
    }

    /// ``CacheControl/freshSeconds(receivedAt:responseDelay:defaultLifetime:)`` at the wall-clock
    /// time `wallSeconds` (seconds since the epoch when the response arrived).
    private static func freshSeconds(_ control: CacheControl, sent: ContinuousClock.Instant,
                                     received: ContinuousClock.Instant, wallSeconds: Int,
                                     defaultLifetime: Int? = nil) -> Int {
        control.freshSeconds(receivedAt: wallSeconds,
                             responseDelay: Int(sent.duration(to: received).inSeconds),
                             defaultLifetime: defaultLifetime)
    }

    /// Conditional headers to revalidate `entry`.
    static func validators(of entry: Entry) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let etag = entry.etag { headers.append((name: "If-None-Match", value: etag)) }
        if let lastModified = entry.lastModified { headers.append((name: "If-Modified-Since", value: lastModified)) }
        return headers
    }

    var count: Int { state.withLock { $0.entries.count } }

    /// Drops what is stored for `key` (a response that may not be stored replaces it).
    func forget(_ key: String) {
        state.withLock { $0.remove(key) }
    }

    /// Evictions so far: read before a fetch, passed to ``store`` as `since`.
    var evictions: UInt64 { state.withLock { $0.evictions } }

    /// Stores `entry` unless an eviction came after `since`; whether it did.
    @discardableResult
    private func put(_ entry: Entry, forKey key: String, since: UInt64? = nil) -> Bool {
        let cost = entry.body.count + key.utf8.count
            + entry.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        return state.withLock { state in
            if let since, state.evictions != since { return false }
            state.put(entry, forKey: key, cost: cost)
            return true
        }
    }
}
