/// One request to an upstream service: what a `remote` content operation or action sends.
///
/// `http`, `https` and `file` URLs are accepted; anything else fails with
/// ``UpstreamError/Kind/invalidURL``.
public struct UpstreamRequest: Sendable {
    /// How the client's HTTP cache and request coalescing treat a request.
    public enum CachePolicy: Sendable, Hashable {
        /// Honour the upstream's `Cache-Control` and `ETag` (GET only) and share identical
        /// in-flight GETs.
        case useProtocol
        /// Always go upstream, store nothing, share nothing.
        case bypass
    }

    /// The absolute URL (`http://`, `https://` or `file://`).
    public var url: String
    /// The method, `GET` by default. Only GET requests are cached and coalesced.
    public var method: String
    /// Request headers in order; duplicates are sent as given.
    public var headers: [(name: String, value: String)]
    /// The request body, or nil for none.
    public var body: [UInt8]?
    /// The total time limit, or nil for the client's configured default.
    public var timeout: Duration?
    /// The connect time limit, or nil for the client's configured default.
    public var connectTimeout: Duration?
    /// Whether 3xx redirects are followed (at most 5). Off by default.
    public var followRedirects: Bool
    /// Cache and coalescing policy; ``CachePolicy/useProtocol`` by default.
    public var cachePolicy: CachePolicy
    /// Headers sent after ``headers`` that are not part of the request's identity (cache key,
    /// coalescing): W3C trace context (`traceparent`, `tracestate`), new on every fetch. A
    /// request that joins another's in-flight fetch, or is answered from the cache, sends none.
    public var traceHeaders: [(name: String, value: String)] = []
    /// Seconds a `200` response stays fresh when it states no lifetime of its own (no `max-age`,
    /// `s-maxage` or `Expires`, and not `no-cache`), as nginx's `proxy_cache_valid` gives one;
    /// nil (the default): such a response is never fresh, only revalidated. Its current age
    /// (`Age`, `Date`) counts against it as against an explicit lifetime. Part of the request's
    /// cache identity: a request without it never takes a response stored with it.
    public var defaultMaxAge: Int?

    /// Creates a request; by default a GET without body that honours the HTTP cache and uses the
    /// client's configured timeouts.
    public init(
        url: String,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        timeout: Duration? = nil,
        connectTimeout: Duration? = nil,
        followRedirects: Bool = false,
        cachePolicy: CachePolicy = .useProtocol
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.followRedirects = followRedirects
        self.cachePolicy = cachePolicy
    }

    /// True when the HTTP cache and coalescing apply: a body-less GET with ``CachePolicy/useProtocol``.
    var isCacheable: Bool {
        cachePolicy == .useProtocol && body == nil && method == "GET"
    }

    /// True for a method that is not known to be safe (RFC 9110 9.2.1): anything but GET, HEAD,
    /// OPTIONS and TRACE. Compared as sent, uppercased.
    var isUnsafe: Bool {
        switch method.uppercased() {
        case "GET", "HEAD", "OPTIONS", "TRACE": false
        default: true
        }
    }

    /// The identity of a cacheable request: method, URL, redirect policy, every request header
    /// (so requests that differ in, say, `Authorization` never share a cache entry) and
    /// ``defaultMaxAge``.
    var cacheKey: String {
        var key = method + (followRedirects ? " follow " : " ") + url
        for header in headers {
            key += "\n" + header.name.lowercased() + ":" + header.value
        }
        // A line no header makes (a field name has no parentheses).
        if let defaultMaxAge { key += "\n(default max-age \(defaultMaxAge))" }
        return key
    }

    /// The identity of an in-flight fetch: the cache key plus the time limits, so a caller never
    /// waits on a shared fetch that may outlive its own deadline.
    func flightKey(cacheKey: String) -> String {
        "\(timeout.map { "\($0)" } ?? "-") \(connectTimeout.map { "\($0)" } ?? "-") " + cacheKey
    }
}
