// The config types (ServerSettings, LoadedConfiguration, ConfigurationError, ...) are part of the
// API an embedder uses through `import HubServer`, as before they had a module of their own.
@_exported import HubConfig
@_exported import HubLogging
import Dispatch
import Foundation
import HubEngine
import HubHTTP
import HubIdentity
import HubMetrics
import HubModel
import HubOperations
import HubSync
import HubUpstream

/// The HubServer product: `Config/` in, the HTTP API out. `hub-server serve` runs one; an
/// app embeds one to add its own Swift operations and actions:
///
/// ```swift
/// var extensions = SwiftExtensions()
/// extensions.registerOperation("todoList") { context in TodoListOperation(store: store) }
/// let app = try HubApplication.load(directory: "Config", extensions: extensions)
/// try await app.run()   // serves until SIGTERM or SIGINT, then drains
/// ```
public final class HubApplication: Sendable {
    /// The config being served: the one it started with, or the last one a reload installed
    /// (with the start-up values of the settings that need a restart).
    public var configuration: LoadedConfiguration { reloader.configuration }
    public let engine: ViewEngine
    public let logger: JSONLogger
    let shared: SharedServices
    let http: HTTPServer
    let upstream: CurlUpstreamClient
    /// What remote operations share: the client, the upstream clock, last good content.
    let remote: RemoteServices
    /// Applies invalidations (`POST /invalidate`, and other replicas' through the change feed).
    let invalidator: ContentInvalidator
    /// The router wrapped in the middleware stack: what ``http`` answers every request with.
    let responder: any HTTPResponder
    private let sweeper = SweeperBox()
    /// Loads revocations until the store answers, then writes those that waited for it.
    private let stateRecovery = SweeperBox()
    /// `hub_state_bytes`, sampled in the background.
    private let stateSize: StateSizeSampler
    /// Reloads the config directory (SIGHUP, a watched change, ``reloadConfiguration(trigger:)``).
    let reloader: ConfigReloader
    /// The inotify watcher while serving with `reload.watch`.
    private let watcher = Locked<ConfigWatcher?>(nil)
    /// The SIGHUP listener while ``run()`` serves.
    private let hangupListener = SweeperBox()

    /// Loads `directory` (default: `HUB_CONFIG`, else `Config`) and builds the application.
    /// Throws ``ConfigurationError`` listing every problem. `upstreamClock` is what upstream
    /// freshness and stale windows are measured with (tests step their own).
    public static func load(
        directory: String? = nil, extensions: SwiftExtensions = SwiftExtensions(),
        environment: [String: String] = ProcessInfo.processInfo.environment, upstreamClock: UpstreamClock = .system
    ) throws -> HubApplication {
        let path = ConfigLoader.directory(directory, environment: environment)
        let loader = Self.loader(for: extensions, environment: environment)
        return try HubApplication(
            configuration: try loader.load(directory: path), extensions: extensions, logger: nil, environment: environment,
            upstreamClock: upstreamClock)
    }

    /// Builds the application from a loaded configuration. A reload reads
    /// `configuration.directory` again, with the process environment.
    public convenience init(
        configuration: LoadedConfiguration, extensions: SwiftExtensions = SwiftExtensions(), logger: JSONLogger? = nil
    ) throws {
        try self.init(
            configuration: configuration, extensions: extensions, logger: logger,
            environment: ProcessInfo.processInfo.environment)
    }

    /// The loader of `serve`, `validate` and reloads: the extensions' Swift names, `environment`'s overrides.
    static func loader(for extensions: SwiftExtensions, environment: [String: String]) -> ConfigLoader {
        ConfigLoader(
            swiftOperationNames: Set(extensions.operations.keys), swiftActionNames: Set(extensions.actionFactories.keys),
            environment: environment)
    }

    init(
        configuration: LoadedConfiguration, extensions: SwiftExtensions, logger: JSONLogger?, environment: [String: String],
        upstreamClock: UpstreamClock = .system
    ) throws {
        let settings = configuration.settings
        let logger = logger ?? JSONLogger(level: settings.logLevel, format: settings.logFormat)
        self.logger = logger
        let metrics = ServerMetrics()

        var upstreamConfiguration = settings.upstreamConfiguration
        upstreamConfiguration.clock = upstreamClock
        let upstream = CurlUpstreamClient(configuration: upstreamConfiguration)
        self.upstream = upstream
        let client = InstrumentedUpstreamClient(base: upstream, metrics: metrics)
        let remote = RemoteServices(
            client: client, clock: upstreamClock, cacheEntries: upstreamConfiguration.cacheEntries,
            cacheBytes: upstreamConfiguration.cacheBytes, staleServed: metrics.upstreamStaleServed,
            stringsMissing: metrics.stringsMissing)
        self.remote = remote

        let (keys, keySource) = try SessionKeyring.resolve(settings, configDirectory: configuration.directory)
        let stateStore = InstrumentedStateStore(
            base: try settings.state.makeStore(dataDirectory: settings.dataDirectory), metrics: StateMetrics(registry: metrics.registry),
            unavailableLog: StateUnavailableLog(logger: logger))
        let engine = try Self.makeEngine(
            configuration: configuration, extensions: extensions, remote: remote, metrics: metrics, logger: logger, keys: keys,
            stateStore: stateStore)
        StateMetrics.registerCollected(on: metrics.registry, counters: engine.counters, backend: stateStore.backend)
        stateSize = StateSizeSampler(registry: metrics.registry, backend: stateStore.backend)
        self.engine = engine
        let bridge = RequestBridge(
            retained: RetainedHeaders(configuration: configuration, extra: extensions.retainedRequestHeaders),
            locales: settings.locales.map(LocaleNegotiator.init), installed: engine.definitionsInstalled)
        let verifier = Self.makeVerifier(
            settings.identity, configDirectory: configuration.directory, dataDirectory: settings.dataDirectory,
            upstream: upstream, registry: metrics.registry, logger: logger)
        let shared = SharedServices(
            engine: engine, settings: settings, metrics: metrics, logger: logger, bridge: bridge, sessionKeySource: keySource.kind,
            verifier: verifier)
        self.shared = shared

        let feed = InvalidationFeed(store: stateStore, wallClock: engine.configuration.wallClock)
        stateStore.invalidationFeed.withLock { $0 = feed }
        let invalidator = ContentInvalidator(
            engine: engine, upstream: upstream, remote: remote, renderCache: shared.renderCache, feed: feed,
            registry: metrics.registry, logger: logger)
        self.invalidator = invalidator
        let router = Routes.makeRouter(
            shared: shared,
            invalidation: settings.invalidation.isEnabled
                ? InvalidationEndpoint(
                    invalidator: invalidator, secrets: settings.invalidation.secrets, jsonDepth: settings.limits.jsonDepth)
                : nil)
        var endpoints: any HTTPResponder = router
        if settings.identity.isEnabled {
            endpoints = IdentityGate(
                next: router,
                identity: UserIdentity(
                    settings: settings.identity, verifier: verifier, clientAddress: shared.clientAddress, tags: shared.viewTags))
        }
        let cors = Self.corsMiddleware(settings.cors, router: router, registry: metrics.registry)
        // No RequestIDMiddleware: the connection writes `X-Request-Id` into every response head
        // (one header fewer to copy per request), and ``respond(to:)`` adds it for in-memory callers.
        let responder = endpoints.wrapped(in: [
            TraceContextMiddleware(),
            ObservabilityMiddleware(
                metrics: metrics, logger: logger, accessLog: settings.accessLog, clientAddress: shared.clientAddress),
        ] + cors + [
            ErrorMiddleware { error, request, context in
                logger.log(
                    .error, "unhandled error",
                    ["request_id": .string(context.requestId), "trace_id": .string(TraceContext.traceID(of: context.traceParent) ?? ""),
                     "path": .string(request.path), "error": .string("\(error)")])
            },
            // Inside the error middleware: the layers' errors become problems here, in one place.
            ProblemMiddleware(),
            RepresentationMiddleware(minBytes: settings.gzip.minBytes, level: settings.gzip.level),
        ])
        self.responder = responder
        let http = HTTPServer(configuration: settings.httpConfiguration, responder: responder)
        self.http = http
        self.reloader = ConfigReloader(
            configuration: configuration, loader: Self.loader(for: extensions, environment: environment),
            extensions: extensions, engine: engine, shared: shared, remote: remote, logger: logger)

        SessionMetrics.register(on: metrics, engine: engine)
        ResourceMetrics.register(
            on: metrics, http: http, upstream: upstream, renderCache: shared.renderCache, engine: engine, logger: logger)
        for warning in configuration.warnings {
            logger.log(.warning, "config", ["file": .string(warning.file), "path": .string(warning.path), "problem": .string(warning.message)])
        }
        SessionKeyring.log(keySource, count: keys.keys.count, backend: settings.state.backend, logger: logger)
    }

    /// Binds the listening socket and starts serving. Throws ``ListenError`` when the socket
    /// cannot be opened (the port is taken, the address is not local, ...).
    public func start() throws {
        do {
            try http.start()
        } catch {
            throw ListenError(host: configuration.settings.host, port: configuration.settings.port, underlying: error)
        }
        let idle = configuration.settings.sessions.idleSeconds
        let interval = Duration.milliseconds(Int64(max(0.05, min(idle / 4, 30)) * 1000))
        let sessions = engine.sessions
        let engine = self.engine
        startWatching()
        stateSize.start(engine.stateStore)
        if let verifier = shared.verifier { Task { await verifier.start() } }
        // Tokens revoked before this start (or on another replica) are refused from now on, and
        // revocations made while the store was unavailable are written when it answers again.
        stateRecovery.start { [logger] in Self.recoverRevocations(engine: engine, logger: logger) }
        sweeper.start {
            Task.detached {
                var lastPurge = ContinuousClock.now
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    sessions.removeExpired()
                    engine.pruneRevocations()
                    // Expired state values: a minute apart (a query on the database, not a memory sweep).
                    if ContinuousClock.now - lastPurge >= .seconds(60) {
                        lastPurge = .now
                        _ = try? await engine.stateStore.purgeExpired(now: engine.configuration.wallClock())
                    }
                }
            }
        }
        logger.log(
            .info, "listening",
            ["address": .string(http.localAddress), "port": .int(http.localPort), "config": .string(configuration.directory),
             "features": .int(engine.features.features.count)])
    }

    /// Answers `request` in memory, without a socket: the same middleware stack and router the
    /// HTTP server runs, taken the same way (an answer now, or work for later: ``HTTPAnswer``),
    /// with a ``RequestContext`` made as the transport makes
    /// it (the client's sane `X-Request-Id`, else a generated one), which the response names in
    /// `X-Request-Id` as a connection's would. Errors that escape the stack become problem responses, as on a
    /// connection. Needs no ``start()``.
    ///
    /// The response is what the responder returned, before the transport frames it: a `HEAD`
    /// response may still carry its body, and a streamed body (`GET /view/events`) stays open
    /// until the caller stops reading it.
    ///
    /// ```swift
    /// let app = try HubApplication.load(directory: "Config")
    /// let response = await app.respond(to: HTTPRequest(method: .get, target: "/view?uri=hub:home"))
    /// ```
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let context = RequestContext(for: request)
        var response = await responder.response(to: request, context: context)
        // What a connection writes into every response head.
        if !response.headers.contains(RequestID.headerName) {
            response.headers.add(name: RequestID.headerName, value: context.requestId)
        }
        if !response.headers.contains("X-Content-Type-Options") {
            response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
        }
        return response
    }

    /// The bound port (useful with port 0).
    public var port: Int { http.localPort }

    /// Open client connections.
    public var openConnections: Int { http.openConnections }

    /// The upstream client's running totals (requests, connections opened, cache hits).
    public var upstreamStatistics: UpstreamStatistics { upstream.statistics }

    /// The Prometheus text exposition of every metric (what `GET /metrics` answers).
    public func metricsExposition() -> String { shared.metrics.registry.exposition() }

    /// Drains: `/ready` turns 503 while the server keeps accepting for
    /// `timeouts.drainDelaySeconds` (a balancer or Kubernetes stops sending meanwhile), then
    /// event streams end, the listener closes, in-flight requests finish (with
    /// `Connection: close`) and the rest are closed after `timeouts.drainSeconds`; chain runs
    /// still under way (an action's) finish before the upstream client shuts down.
    public func shutdown() async {
        shared.beginDraining()
        let settings = configuration.settings
        logger.log(
            .info, "draining",
            ["open_connections": .int(http.openConnections), "delay_seconds": .double(settings.timeouts.drainDelaySeconds)])
        if settings.timeouts.drainDelaySeconds > 0 {
            try? await Task.sleep(for: .seconds(settings.timeouts.drainDelaySeconds))
        }
        shared.streams.endAll()
        await http.shutdown()
        sweeper.stop()
        stateRecovery.stop()
        shared.verifier?.shutdown()
        stateSize.stop()
        hangupListener.stop()
        watcher.withLock { $0 }?.stop()
        if !(await engine.waitUntilIdle(timeout: .seconds(settings.timeouts.drainSeconds))) {
            logger.log(.warning, "chains still running at shutdown", ["running": .int(engine.runningChains)])
        }
        remote.stale.close()
        upstream.shutdown()
        engine.stateStore.close()
        logger.log(.info, "stopped")
        logger.flush()
    }

    /// Starts, serves until SIGTERM or SIGINT, then drains.
    public func run() async throws {
        // The handlers are installed before the listener opens, so a signal sent as soon as the
        // server answers (an orchestrator, a test) is never the default action (termination).
        let terminations = SignalPipe.termination.notifications()
        let hangups = SignalPipe.hangup.notifications()
        try start()
        let reloader = self.reloader
        hangupListener.start {
            Task.detached {
                for await _ in hangups {
                    _ = await reloader.reload(trigger: "SIGHUP")
                }
            }
        }
        for await _ in terminations { break }
        await shutdown()
    }

    // MARK: - Reloading

    /// Loads the config directory again and serves it when valid (what SIGHUP and a watched
    /// file change do): see ``ConfigReloadResult``. `trigger` names the cause in the log.
    @discardableResult
    public func reloadConfiguration(trigger: String = "api") async -> ConfigReloadResult {
        await reloader.reload(trigger: trigger)
    }

    /// Starts the inotify watcher when `reload.watch` is on; without inotify, SIGHUP still works.
    private func startWatching() {
        let settings = configuration.settings
        guard settings.reload.watch else { return }
        let reloader = self.reloader
        do {
            let started = try ConfigWatcher(
                directory: configuration.directory, debounce: .milliseconds(settings.reload.debounceMs)
            ) {
                Task { _ = await reloader.reload(trigger: "watch") }
            }
            watcher.withLock { $0 = started }
        } catch {
            logger.log(
                .warning, "config watching unavailable; SIGHUP still reloads",
                ["config": .string(configuration.directory), "error": .string("\(error)")])
        }
    }
}
