import HubPrimitives
import Synchronization

/// The production ``UpstreamClient``: libcurl's multi interface on one dedicated thread, with an
/// HTTP cache and coalescing of identical in-flight GETs in front of it.
///
/// - Connections are kept in curl's connection cache and reused; at most
///   ``UpstreamConfiguration/maxConnectionsPerHost`` are open to one host (more transfers queue).
/// - Total and connect time limits, the response size limit (the transfer is aborted past it),
///   redirects off unless ``UpstreamRequest/followRedirects``, `Accept-Encoding` decoded by curl,
///   protocols restricted to http, https and file.
/// - Cancelling the calling task removes the transfer from curl and throws `CancellationError`.
///
/// Create one per process and share it; call ``shutdown()`` when done (also done on deinit).
public final class CurlUpstreamClient: UpstreamClient {
    /// The settings this client was created with.
    public let configuration: UpstreamConfiguration
    private let counters = UpstreamCounters()
    private let engine: CurlEngine
    let cache: HTTPCache?
    private let coalescer = RequestCoalescer<UpstreamResponse>()
    private var clock: UpstreamClock { configuration.clock }

    /// Creates a client and starts its curl thread.
    public init(configuration: UpstreamConfiguration = UpstreamConfiguration()) {
        self.configuration = configuration
        engine = CurlEngine(configuration: configuration, counters: counters)
        cache = configuration.cacheEntries > 0 && configuration.cacheBytes > 0
            ? HTTPCache(maxEntries: configuration.cacheEntries, maxBytes: configuration.cacheBytes) : nil
    }

    deinit { engine.shutdown() }

    /// Stops the curl thread: in-flight and later requests fail with ``UpstreamError/Kind/other``.
    public func shutdown() { engine.shutdown() }

    /// Counters since creation.
    public var statistics: UpstreamStatistics { counters.snapshot }

    /// Callers now waiting on an in-flight cacheable GET, the flight's leader included: lets a
    /// test know that requests have joined a flight instead of guessing with a sleep.
    var coalescingWaiters: Int { coalescer.waiterCount }

    /// Sends `request`; see ``UpstreamClient/send(_:)``. Cacheable GETs are answered from a fresh
    /// cache entry, revalidated when stale, and shared with identical concurrent GETs. A 2xx or
    /// 3xx answer to an unsafe method (POST, PUT, PATCH, DELETE, ...) drops the cached responses
    /// for its URL and for same-origin `Location`/`Content-Location` URLs (RFC 9111 4.4).
    public func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let started = ContinuousClock.now
        guard request.isCacheable, !Self.hasConditionalHeaders(request) else {
            let result = try await engine.perform(request)
            if let cache, request.isUnsafe, (200..<400).contains(result.status) {
                cache.invalidate(afterUnsafeRequestTo: request.url, responseHeaders: result.headers)
            }
            return UpstreamResponse(
                status: result.status, headers: result.headers, body: result.body,
                cacheStatus: .bypass, freshUntil: nil, elapsed: started.duration(to: .now))
        }
        let key = request.cacheKey
        if let cache, case .fresh(let entry) = cache.lookup(key, now: clock.now()) {
            counters.cacheHits.add(1, ordering: .relaxed)
            return Self.response(entry, .hit, elapsed: started.duration(to: .now))
        }
        var (response, joined) = try await coalescer.run(key: request.flightKey(cacheKey: key)) { [self] in
            try await fetch(request, key: key)
        }
        if joined { counters.coalescedRequests.add(1, ordering: .relaxed) }
        switch response.cacheStatus {
        case .hit: counters.cacheHits.add(1, ordering: .relaxed)
        case .revalidated: counters.cacheRevalidations.add(1, ordering: .relaxed)
        case .miss, .bypass: break
        }
        response.elapsed = started.duration(to: .now)
        return response
    }

    /// The shared part of a cacheable GET: revalidate a stale entry or fetch, then store.
    /// Without a cache (``UpstreamConfiguration/cacheEntries`` 0) it still runs once per flight.
    private func fetch(_ request: UpstreamRequest, key: String) async throws -> UpstreamResponse {
        guard let cache else {
            let result = try await engine.perform(request)
            return UpstreamResponse(status: result.status, headers: result.headers, body: result.body, cacheStatus: .miss)
        }
        var upstreamRequest = request
        let stale: HTTPCache.Entry?
        switch cache.lookup(key, now: clock.now()) {
        case .fresh(let entry):
            // Stored by a flight that finished between our lookup and this one.
            return Self.response(entry, .hit, elapsed: .zero)
        case .stale(let entry):
            stale = entry
            upstreamRequest.headers += HTTPCache.validators(of: entry)
        case .none:
            stale = nil
        }
        // An eviction (`POST /invalidate`) while this fetch is out may be of what it brings back.
        let evictions = cache.evictions
        let sent = clock.now()
        let result = try await engine.perform(upstreamRequest)
        let received = clock.now()
        let wallSeconds = clock.wallSeconds()
        if result.status == 304, let stale {
            let entry = cache.revalidate(
                stale, with: result.headers, forKey: key, sent: sent, received: received, wallSeconds: wallSeconds,
                since: evictions, defaultLifetime: request.defaultMaxAge)
            return Self.response(entry, .revalidated, elapsed: .zero)
        }
        // A response that varies on a header this request did not send is not stored: the
        // cache could not tell which requests it answers (``VaryRule``).
        guard VaryRule.allowsStoring(responseHeaders: result.headers, requestHeaders: request.headers) else {
            cache.forget(key)
            counters.uncacheableVary.add(1, ordering: .relaxed)
            return UpstreamResponse(status: result.status, headers: result.headers, body: result.body, cacheStatus: .miss)
        }
        let stored = cache.store(
            result, forKey: key, url: request.url, sent: sent, received: received, wallSeconds: wallSeconds,
            since: evictions, defaultLifetime: request.defaultMaxAge)
        return UpstreamResponse(
            status: result.status, headers: result.headers, body: result.body,
            cacheStatus: .miss, freshUntil: stored?.publicFreshUntil, elapsed: .zero)
    }

    private static func response(_ entry: HTTPCache.Entry, _ status: UpstreamCacheStatus, elapsed: Duration) -> UpstreamResponse {
        UpstreamResponse(
            status: entry.status, headers: entry.headers, body: entry.body,
            cacheStatus: status, freshUntil: entry.publicFreshUntil, elapsed: elapsed)
    }

    /// A caller's own conditional GET goes straight through: its 304 belongs to the caller.
    private static func hasConditionalHeaders(_ request: UpstreamRequest) -> Bool {
        request.headers.contains {
            $0.name.asciiCaseInsensitiveEquals("if-none-match") || $0.name.asciiCaseInsensitiveEquals("if-modified-since")
        }
    }
}
