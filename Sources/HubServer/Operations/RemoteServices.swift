import HubMetrics
import HubUpstream

/// What every `remote` operation and remote action of one server shares, across config
/// reloads: the upstream client, the clock its cache measures freshness with, which URLs are
/// fresh (for the chain memo), the last good content served stale, and the stale counter.
final class RemoteServices: Sendable {
    let client: any UpstreamClient
    let clock: UpstreamClock
    let freshness: RemoteFreshness
    let stale: StaleContentStore
    /// The content tags of each URL's latest response (invalidation by tag).
    let tags: UpstreamTagIndex
    /// `hub_upstream_stale_served_total{feature}`; nil outside a server (no metrics).
    let staleServed: MetricFamily<Counter>?

    init(client: any UpstreamClient, clock: UpstreamClock, cacheEntries: Int, cacheBytes: Int, metrics: ServerMetrics?) {
        self.client = client
        self.clock = clock
        freshness = RemoteFreshness(capacity: max(1, cacheEntries), now: clock.now)
        tags = UpstreamTagIndex(capacity: max(1, cacheEntries))
        stale = StaleContentStore(clock: clock, maximumEntries: max(1, cacheEntries), maximumBytes: max(1, cacheBytes))
        staleServed = metrics?.upstreamStaleServed
    }
}
