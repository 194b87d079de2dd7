import HubEngine
import HubLogging
import HubOperations
import HubUpstream

extension HubApplication {
    /// Checks that `configuration` makes the engine `serve` would start with (Swift operation
    /// and action names, feature identifiers, action namespaces, configured session keys)
    /// without side effects: no session key is generated, no state store is opened, no data
    /// directory is created, nothing is fetched. Throws ``ConfigurationError``.
    /// `hub-server validate` calls it.
    public static func validate(_ configuration: LoadedConfiguration, extensions: SwiftExtensions) throws {
        let settings = configuration.settings
        // Keys given by the environment or a key file are read and checked; a generated key
        // would be made by `serve` in its data directory, which validation leaves alone.
        if !settings.sessions.keyTexts.isEmpty || settings.sessions.keyFile != nil {
            _ = try SessionKeyring.resolve(settings, configDirectory: configuration.directory)
        }
        let upstream = CurlUpstreamClient(configuration: settings.upstreamConfiguration)
        defer { upstream.shutdown() }
        let metrics = ServerMetrics()
        let remote = RemoteServices(
            client: InstrumentedUpstreamClient(base: upstream, metrics: metrics), clock: .system,
            cacheEntries: settings.upstreamConfiguration.cacheEntries, cacheBytes: settings.upstreamConfiguration.cacheBytes,
            staleServed: metrics.upstreamStaleServed, stringsMissing: metrics.stringsMissing)
        _ = try makeEngine(
            configuration: configuration, extensions: extensions, remote: remote, metrics: metrics, logger: nil,
            keys: SessionKeys.ephemeral(), stateStore: MemoryStateStore())
    }
}
