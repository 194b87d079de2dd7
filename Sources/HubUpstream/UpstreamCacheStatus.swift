/// Where an ``UpstreamResponse`` came from, as far as the HTTP cache is concerned.
public enum UpstreamCacheStatus: String, Sendable, Hashable {
    /// Served from a fresh cache entry (no upstream traffic).
    case hit
    /// A stale entry was revalidated with `If-None-Match`/`If-Modified-Since` and the upstream
    /// answered 304: the cached body was reused.
    case revalidated
    /// Fetched from the upstream (possibly shared with concurrent identical GETs).
    case miss
    /// The cache did not apply (a non-GET, a request body, or ``UpstreamRequest/CachePolicy/bypass``).
    case bypass
}
