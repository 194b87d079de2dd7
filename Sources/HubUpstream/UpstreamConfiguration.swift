import HubPrimitives

/// Settings of a ``CurlUpstreamClient``; the defaults are those of `server.json`'s `upstream`.
public struct UpstreamConfiguration: Sendable {
    /// Total time limit of a request unless the request sets its own (`timeoutMs`, 2000).
    public var timeout: Duration
    /// Connect time limit unless the request sets its own (`connectTimeoutMs`, 500).
    public var connectTimeout: Duration
    /// Most simultaneous connections to one host; further transfers queue (`maxConnectionsPerHost`, 32).
    public var maxConnectionsPerHost: Int
    /// Largest accepted response body; bigger transfers are aborted (`maxResponseBytes`, 8 MiB).
    public var maxResponseBytes: Int
    /// Most entries in the HTTP cache; 0 disables caching (`cacheEntries`, 10 000).
    public var cacheEntries: Int
    /// Most body bytes held by the HTTP cache (64 MiB).
    public var cacheBytes: Int
    /// Most idle connections kept open for reuse, across hosts.
    public var maxIdleConnections: Int
    /// The clocks the HTTP cache computes freshness with (``UpstreamClock/system``; tests inject their own).
    public var clock: UpstreamClock = .system

    /// Creates a configuration; every parameter defaults to the `server.json` default.
    public init(
        timeout: Duration = .milliseconds(2000),
        connectTimeout: Duration = .milliseconds(500),
        maxConnectionsPerHost: Int = 32,
        maxResponseBytes: Int = 8_388_608,
        cacheEntries: Int = 10_000,
        cacheBytes: Int = 64 << 20,
        maxIdleConnections: Int = 256
    ) {
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxResponseBytes = maxResponseBytes
        self.cacheEntries = cacheEntries
        self.cacheBytes = cacheBytes
        self.maxIdleConnections = maxIdleConnections
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a positive duration never becomes 0 (curl's "no limit").
    var curlMilliseconds: Int {
        Int(max(1, inMilliseconds.rounded(.up)))
    }
}
