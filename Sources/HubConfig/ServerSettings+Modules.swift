import HubEngine
import HubHTTP
import HubUpstream

/// The one place `server.json` becomes each module's configuration: the HTTP server's, the
/// upstream client's and the engine's. Durations are seconds (or milliseconds, for the
/// `upstream` keys) in the file and `Duration`s in the modules.
extension ServerSettings {
    /// Listen address, connection balancing, request limits, connection timeouts and gzip of the HTTP server.
    package var httpConfiguration: HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.balancing = connectionBalancing
        configuration.limits.requestLineBytes = limits.requestLineBytes
        configuration.limits.headerBytes = limits.headerBytes
        configuration.limits.headerCount = limits.headerCount
        configuration.limits.bodyBytes = limits.bodyBytes
        configuration.limits.connections = limits.connections
        configuration.timeouts.header = .seconds(timeouts.headerSeconds)
        configuration.timeouts.body = .seconds(timeouts.bodySeconds)
        configuration.timeouts.idle = .seconds(timeouts.idleSeconds)
        configuration.timeouts.drain = .seconds(timeouts.drainSeconds)
        configuration.gzip.minBytes = gzip.minBytes
        configuration.gzip.level = gzip.level
        return configuration
    }

    /// Timeouts, connection cap, response cap and HTTP cache of the upstream client.
    package var upstreamConfiguration: UpstreamConfiguration {
        var configuration = UpstreamConfiguration()
        configuration.timeout = .milliseconds(upstream.timeoutMs)
        configuration.connectTimeout = .milliseconds(upstream.connectTimeoutMs)
        configuration.maxConnectionsPerHost = upstream.maxConnectionsPerHost
        configuration.maxResponseBytes = upstream.maxResponseBytes
        configuration.cacheEntries = upstream.cacheEntries
        return configuration
    }

    /// Operation deadline, component defaults, session cap and TTL, chain memo and page cap of
    /// the engine; `chainObserver` sees every drained run (metrics).
    /// `keys`: the session keys the application resolved (``SessionKeyring``); `stateStore`: the
    /// store it opened (``StateStoreSettings/makeStore(dataDirectory:)``).
    package func engineConfiguration(
        keys: SessionKeys = .ephemeral(), stateStore: any StateStore = MemoryStateStore(),
        chainObserver: (@Sendable (ChainReport) -> Void)?
    ) -> ViewEngine.Configuration {
        var configuration = ViewEngine.Configuration(
            operationDeadline: .seconds(timeouts.operationSeconds), componentDefaults: components,
            maxSessions: sessions.max, sessionIdleTimeout: .seconds(sessions.idleSeconds),
            memoEntries: caches.memoEntries, memoBytes: caches.memoBytes, maxPages: sessions.maxPages,
            chainObserver: chainObserver, sessionKeys: keys, tokenMaxAge: .seconds(sessions.tokenMaxAgeSeconds),
            maxConcurrentReruns: reload.maxConcurrentReruns, stateStore: stateStore, stateSettings: state.engineSettings)
        configuration.maxSessionBytes = sessions.maxBytes ?? .max
        configuration.protectedSessionsPerOwner = protectedSessionsPerClient
        return configuration
    }
}
