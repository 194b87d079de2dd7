import HubMetrics
import HubUpstream

/// What every `remote` operation and remote action of one server shares, across config
/// reloads: the upstream client, the clock its cache measures freshness with, which URLs are
/// fresh (for the chain memo), the last good content served stale, and the stale counter.
package final class RemoteServices: Sendable {
    package let client: any UpstreamClient
    package let clock: UpstreamClock
    package let freshness: RemoteFreshness
    package let stale: StaleContentStore
    /// The content tags of each URL's latest response (invalidation by tag).
    package let tags: UpstreamTagIndex
    /// `hub_upstream_stale_served_total{feature}`; nil outside a server (no metrics).
    package let staleServed: MetricFamily<Counter>?
    /// `hub_strings_missing_total{locale}` (``StringResolver``); nil outside a server.
    package let stringsMissing: MetricFamily<Counter>?

    package init(
        client: any UpstreamClient, clock: UpstreamClock, cacheEntries: Int, cacheBytes: Int, staleServed: MetricFamily<Counter>?,
        stringsMissing: MetricFamily<Counter>?
    ) {
        self.client = client
        self.clock = clock
        freshness = RemoteFreshness(capacity: max(1, cacheEntries), now: clock.now)
        tags = UpstreamTagIndex(capacity: max(1, cacheEntries))
        stale = StaleContentStore(clock: clock, maximumEntries: max(1, cacheEntries), maximumBytes: max(1, cacheBytes))
        self.staleServed = staleServed
        self.stringsMissing = stringsMissing
    }
}
