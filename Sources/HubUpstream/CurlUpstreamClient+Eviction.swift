extension CurlUpstreamClient {
    /// Drops the stored responses (the HTTP cache) that `matches` selects, given the URL each was
    /// fetched from and its content tags (``UpstreamResponse/contentTags``); returns how many
    /// were dropped. A fetch in flight is not stopped, but what it brings back is not stored (it
    /// may be what was evicted, fetched before the change).
    /// `POST /invalidate` calls it.
    public func evictCached(where matches: (_ url: String, _ tags: [String]) -> Bool) -> Int {
        cache?.evict(where: matches) ?? 0
    }
}
