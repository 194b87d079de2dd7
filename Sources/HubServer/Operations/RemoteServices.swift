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
    /// `hub_upstream_stale_served_total{feature}`; nil outside a server (no metrics).
    let staleServed: MetricFamily<Counter>?
    /// `hub_strings_missing_total{locale}` (``StringResolver``); nil outside a server.
    let stringsMissing: MetricFamily<Counter>?

    init(client: any UpstreamClient, clock: UpstreamClock, cacheEntries: Int, cacheBytes: Int, metrics: ServerMetrics?) {
        self.client = client
        self.clock = clock
        freshness = RemoteFreshness(capacity: max(1, cacheEntries), now: clock.now)
        stale = StaleContentStore(clock: clock, maximumEntries: max(1, cacheEntries), maximumBytes: max(1, cacheBytes))
        staleServed = metrics?.upstreamStaleServed
        stringsMissing = metrics?.registry.counter(
            "hub_strings_missing_total",
            help: "Catalog strings content was built without in the request's locale (the default locale's, or the key), by locale.",
            labels: ["locale"])
    }
}
