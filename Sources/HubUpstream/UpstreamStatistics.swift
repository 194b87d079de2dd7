import Synchronization

/// A snapshot of a ``CurlUpstreamClient``'s counters since it was created.
public struct UpstreamStatistics: Sendable, Hashable {
    /// Transfers handed to curl (cache hits and coalesced waiters are not counted).
    public var requestsStarted: Int
    /// Connections curl opened (`CURLINFO_NUM_CONNECTS` summed): low when connections are reused.
    public var connectionsOpened: Int
    /// Responses served from a fresh cache entry.
    public var cacheHits: Int
    /// Responses served from a cache entry after a 304 revalidation.
    public var cacheRevalidations: Int
    /// `send` calls that shared another call's in-flight upstream request.
    public var coalescedRequests: Int
    /// Cacheable responses not stored because their `Vary` names a request header this client
    /// did not send, or `*` (``VaryRule``).
    public var uncacheableVary: Int = 0
}

/// The live counters behind ``UpstreamStatistics`` (atomics: bumped from the curl thread and tasks).
final class UpstreamCounters: Sendable {
    let requestsStarted = Atomic<Int>(0)
    let connectionsOpened = Atomic<Int>(0)
    let cacheHits = Atomic<Int>(0)
    let cacheRevalidations = Atomic<Int>(0)
    let coalescedRequests = Atomic<Int>(0)
    let uncacheableVary = Atomic<Int>(0)

    var snapshot: UpstreamStatistics {
        UpstreamStatistics(
            requestsStarted: requestsStarted.load(ordering: .relaxed),
            connectionsOpened: connectionsOpened.load(ordering: .relaxed),
            cacheHits: cacheHits.load(ordering: .relaxed),
            cacheRevalidations: cacheRevalidations.load(ordering: .relaxed),
            coalescedRequests: coalescedRequests.load(ordering: .relaxed),
            uncacheableVary: uncacheableVary.load(ordering: .relaxed)
        )
    }
}
