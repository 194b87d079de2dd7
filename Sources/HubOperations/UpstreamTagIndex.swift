import HubSync

/// The content tags (`Surrogate-Key`, `Cache-Tag`) of the latest response from each remote URL,
/// shared by every `remote` operation: what a session reports it used (``ContentSources``),
/// for content served from last good content too, and what matches the last good content and
/// the upstream freshness of a URL to an invalidation's tags. Bounded like the freshness table:
/// full, it starts over (a URL it forgot is matched by its URL alone until fetched again).
package final class UpstreamTagIndex: Sendable {
    private let tagsByURL = Locked<[String: [String]]>([:])
    package let capacity: Int

    package init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Keeps `tags` as `url`'s (none: forgets it).
    package func record(url: String, tags: [String]) {
        tagsByURL.withLock { table in
            guard !tags.isEmpty else {
                table[url] = nil
                return
            }
            guard table[url] != tags else { return }
            if table.count >= capacity, table[url] == nil { table.removeAll(keepingCapacity: true) }
            table[url] = tags
        }
    }

    /// `url`'s tags as last fetched (empty when none are known).
    package func tags(for url: String) -> [String] {
        tagsByURL.withLock { $0[url] ?? [] }
    }
}
