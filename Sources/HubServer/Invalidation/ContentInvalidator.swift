import HubEngine
import HubLogging
import HubMetrics
import HubModel
import HubOperations
import HubUpstream

/// Applies an invalidation to everything of this process that holds the content it names: the
/// upstream HTTP cache (by URL, URL prefix, or the tags of the stored response), last good
/// content and the upstream freshness table (by URL, or the URL's latest tags), the chain memo
/// and the renderings of its views, and the live sessions that used it (``ViewEngine/invalidate(_:droppedViews:)``).
/// `POST /invalidate` applies it here and publishes it (``InvalidationFeed``); other replicas
/// apply what the feed brings them.
final class ContentInvalidator: Sendable {
    /// What one invalidation matched here.
    struct Matched: Sendable, Equatable {
        /// Upstream responses, last good content and chain memo entries dropped.
        var cacheEntries = 0
        /// Live sessions marked stale.
        var sessions = 0
    }

    let engine: ViewEngine
    let upstream: CurlUpstreamClient
    let remote: RemoteServices
    let renderCache: RenderCache
    let feed: InvalidationFeed
    let logger: JSONLogger
    /// `hub_invalidations_total{result}`.
    let results: MetricFamily<Counter>
    /// `hub_invalidated_sessions_total`.
    let invalidatedSessions: Counter

    /// The results `hub_invalidations_total` counts.
    static let resultLabels = ["accepted", "invalid_signature", "stale_signature", "too_large", "too_many_entries"]

    init(
        engine: ViewEngine, upstream: CurlUpstreamClient, remote: RemoteServices, renderCache: RenderCache,
        feed: InvalidationFeed, registry: MetricsRegistry, logger: JSONLogger
    ) {
        self.engine = engine
        self.upstream = upstream
        self.remote = remote
        self.renderCache = renderCache
        self.feed = feed
        self.logger = logger
        results = registry.counter(
            "hub_invalidations_total", help: "POST /invalidate requests, by result (accepted, or why refused).",
            labels: ["result"])
        for label in Self.resultLabels { _ = results.labels(label) }
        invalidatedSessions = registry.counter(
            "hub_invalidated_sessions_total",
            help: "Live sessions marked stale by invalidations (accepted here or brought by the change feed).").labels()
        feed.onReceive { [weak self] invalidation in
            guard let self else { return }
            let matched = await self.apply(invalidation)
            self.log(invalidation, matched, origin: "feed")
        }
    }

    /// Applies `invalidation` here; returns what it matched.
    func apply(_ invalidation: ContentInvalidation) async -> Matched {
        let tags = remote.tags
        let matchesURL: (String) -> Bool = { url in invalidation.matches(url: url, tags: tags.tags(for: url)) }
        var matched = Matched()
        matched.cacheEntries += upstream.evictCached { url, responseTags in
            invalidation.matches(url: url, tags: responseTags)
        }
        matched.cacheEntries += remote.stale.forget(where: matchesURL)
        remote.freshness.forget(where: matchesURL)
        let renderCache = self.renderCache
        let report = await engine.invalidate(invalidation) { renderCache.forget($0) }
        matched.cacheEntries += report.memoEntries
        matched.sessions = report.sessions
        invalidatedSessions.increment(by: UInt64(report.sessions))
        return matched
    }

    /// Logs an applied invalidation (`origin`: `request` or `feed`), by its sizes only.
    func log(_ invalidation: ContentInvalidation, _ matched: Matched, origin: String) {
        logger.log(
            .info, "content invalidated",
            ["origin": .string(origin), "urls": .int(invalidation.urls.count), "url_prefixes": .int(invalidation.urlPrefixes.count),
             "tags": .int(invalidation.tags.count), "features": .int(invalidation.features.count),
             "cache_entries": .int(matched.cacheEntries), "sessions": .int(matched.sessions)])
    }
}
