import HubPrimitives

/// An upstream's answer. Non-2xx statuses are answers too: the caller decides what they mean
/// (see ``UpstreamClient/sendExpectingSuccess(_:)``).
public struct UpstreamResponse: Sendable {
    /// The HTTP status; `200` for a `file://` URL that was read.
    public var status: Int
    /// Response headers in order, names as the upstream sent them (use ``header(_:)`` to look up).
    public var headers: [(name: String, value: String)]
    /// The body, decoded from any `Content-Encoding` curl understands.
    public var body: [UInt8]
    /// Whether the cache served, revalidated, missed or was bypassed.
    public var cacheStatus: UpstreamCacheStatus
    /// Until when this body may be reused without asking the upstream again (from
    /// `Cache-Control: max-age`/`s-maxage` or `Expires`, less the response's age), or nil when
    /// it is not cacheable. Callers can memoize deterministic work built on this body until then.
    public var freshUntil: ContinuousClock.Instant?
    /// Time spent in `send`, including any wait for a shared in-flight request.
    public var elapsed: Duration

    /// Creates a response (for tests and for ``UpstreamClient`` implementations other than curl).
    public init(
        status: Int,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        cacheStatus: UpstreamCacheStatus = .bypass,
        freshUntil: ContinuousClock.Instant? = nil,
        elapsed: Duration = .zero
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.cacheStatus = cacheStatus
        self.freshUntil = freshUntil
        self.elapsed = elapsed
    }

    /// True for a 2xx status.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// True when ``freshUntil`` lies in the future.
    public var isFresh: Bool {
        guard let freshUntil else { return false }
        return ContinuousClock.now < freshUntil
    }

    /// The first value of the header `name`, compared case-insensitively (ASCII).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.asciiCaseInsensitiveEquals(name) }?.value
    }

    /// The upstream's `Cache-Control: stale-if-error=N, stale-while-revalidate=N` (RFC 5861), in
    /// seconds (nil for a directive it did not send, or sent without valid delta-seconds), and
    /// whether it said `no-store` (nothing may keep the response).
    public var staleDirectives: (ifError: Int?, whileRevalidate: Int?, noStore: Bool) {
        let control = CacheControl(headers: headers)
        return (control.staleIfError, control.staleWhileRevalidate, control.noStore)
    }

    /// Every value of the header `name`, in order, compared case-insensitively (ASCII).
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.asciiCaseInsensitiveEquals(name) }.map(\.value)
    }
}
