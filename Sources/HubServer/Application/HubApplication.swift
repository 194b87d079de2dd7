import Dispatch
import Foundation
import HubEngine
import HubHTTP
import HubMetrics
import HubModel
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
    public let configuration: LoadedConfiguration
    public let engine: ViewEngine
    public let logger: JSONLogger
    let state: ServerState
    let http: HTTPServer
    let upstream: CurlUpstreamClient
    /// The router wrapped in the middleware stack: what ``http`` answers every request with.
    let responder: any HTTPResponder
    private let sweeper = SweeperBox()

    /// Loads `directory` (default: `HUB_CONFIG`, else `Config`) and builds the application.
    /// Throws ``ConfigurationError`` listing every problem.
    public static func load(
        directory: String? = nil, extensions: SwiftExtensions = SwiftExtensions(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> HubApplication {
        let path = directory ?? environment["HUB_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? "Config"
        let loader = ConfigLoader(
            swiftOperationNames: Set(extensions.operations.keys), swiftActionNames: Set(extensions.actionFactories.keys),
            environment: environment)
        return try HubApplication(configuration: try loader.load(directory: path), extensions: extensions)
    }

    /// Builds the application from a loaded configuration.
    public init(configuration: LoadedConfiguration, extensions: SwiftExtensions = SwiftExtensions(), logger: JSONLogger? = nil) throws {
        self.configuration = configuration
        let settings = configuration.settings
        let logger = logger ?? JSONLogger(level: settings.logLevel, format: settings.logFormat)
        self.logger = logger
        let metrics = ServerMetrics()

        var upstreamConfiguration = UpstreamConfiguration()
        upstreamConfiguration.timeout = .milliseconds(settings.upstream.timeoutMs)
        upstreamConfiguration.connectTimeout = .milliseconds(settings.upstream.connectTimeoutMs)
        upstreamConfiguration.maxConnectionsPerHost = settings.upstream.maxConnectionsPerHost
        upstreamConfiguration.maxResponseBytes = settings.upstream.maxResponseBytes
        upstreamConfiguration.cacheEntries = settings.upstream.cacheEntries
        let upstream = CurlUpstreamClient(configuration: upstreamConfiguration)
        self.upstream = upstream
        let client = InstrumentedUpstreamClient(base: upstream, metrics: metrics)

        let engine = try Self.makeEngine(
            configuration: configuration, extensions: extensions, client: client, metrics: metrics, logger: logger)
        self.engine = engine
        let bridge = RequestBridge(
            retained: RetainedHeaders(configuration: configuration, extra: extensions.retainedRequestHeaders))
        let state = ServerState(engine: engine, settings: settings, metrics: metrics, logger: logger, bridge: bridge)
        self.state = state

        let router = Routes.makeRouter(state: state)
        let cors = Self.corsMiddleware(settings.cors, router: router, registry: metrics.registry)
        let responder = router.wrapped(in: [
            RequestIDMiddleware(),
            TraceContextMiddleware(),
            ObservabilityMiddleware(metrics: metrics, logger: logger, accessLog: settings.accessLog),
        ] + cors + [
            ErrorMiddleware { error, request, context in
                logger.log(
                    .error, "unhandled error",
                    ["request_id": .string(context.requestId), "trace_id": .string(TraceContext.traceID(of: context.traceParent) ?? ""),
                     "path": .string(request.path), "error": .string("\(error)")])
            },
            RepresentationMiddleware(minBytes: settings.gzip.minBytes, level: settings.gzip.level),
        ])
        self.responder = responder
        let http = HTTPServer(configuration: Self.httpConfiguration(settings), responder: responder)
        self.http = http

        Self.registerCollectedMetrics(metrics: metrics, engine: engine, http: http, upstream: upstream)
        let renderCache = state.renderCache
        metrics.registry.collectedGauge(
            "hub_cache_bytes", help: "Bytes charged to the shared caches (estimated from the JSON they hold), by cache."
        ) {
            [(labels: [("cache", "render")], value: Double(renderCache.usage.bytes)),
             (labels: [("cache", "memo")], value: Double(engine.memoUsage.bytes))]
        }
        metrics.registry.collectedGauge("hub_cache_entries", help: "Entries in the shared caches, by cache.") {
            [(labels: [("cache", "render")], value: Double(renderCache.usage.entries)),
             (labels: [("cache", "memo")], value: Double(engine.memoUsage.entries))]
        }
        metrics.registry.collectedCounter(
            "hub_log_lines_dropped_total", help: "Log lines dropped: the log pipe was full, slow or closed."
        ) { [(labels: [], value: Double(logger.droppedLines))] }
        for warning in configuration.warnings {
            logger.log(.warning, "config", ["file": .string(warning.file), "path": .string(warning.path), "problem": .string(warning.message)])
        }
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
        sweeper.start {
            Task.detached {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    sessions.removeExpired()
                }
            }
        }
        logger.log(
            .info, "listening",
            ["address": .string(http.localAddress), "port": .int(http.localPort), "config": .string(configuration.directory),
             "features": .int(engine.features.features.count)])
    }

    /// Answers `request` in memory, without a socket: the same middleware stack and router the
    /// HTTP server runs, with a ``RequestContext`` made as the transport makes it (the client's
    /// sane `X-Request-Id`, else a generated one). Errors that escape the stack become problem
    /// responses, as on a connection. Needs no ``start()``.
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
        let context = RequestContext(requestId: RequestID.make(for: request), remoteAddress: request.remoteAddress)
        do {
            return try await responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            return error.response
        } catch {
            return HTTPError.internalError.response
        }
    }

    /// The bound port (useful with port 0).
    public var port: Int { http.localPort }

    /// Open client connections.
    public var openConnections: Int { http.openConnections }

    /// The upstream client's running totals (requests, connections opened, cache hits).
    public var upstreamStatistics: UpstreamStatistics { upstream.statistics }

    /// The Prometheus text exposition of every metric (what `GET /metrics` answers).
    public func metricsExposition() -> String { state.metrics.registry.exposition() }

    /// Drains: `/ready` turns 503 while the server keeps accepting for
    /// `timeouts.drainDelaySeconds` (a balancer or Kubernetes stops sending meanwhile), then
    /// event streams end, the listener closes, in-flight requests finish (with
    /// `Connection: close`) and the rest are closed after `timeouts.drainSeconds`; chain runs
    /// still under way (an action's) finish before the upstream client shuts down.
    public func shutdown() async {
        state.beginDraining()
        let settings = configuration.settings
        logger.log(
            .info, "draining",
            ["open_connections": .int(http.openConnections), "delay_seconds": .double(settings.timeouts.drainDelaySeconds)])
        if settings.timeouts.drainDelaySeconds > 0 {
            try? await Task.sleep(for: .milliseconds(Int64(settings.timeouts.drainDelaySeconds * 1000)))
        }
        state.streams.endAll()
        await http.shutdown()
        sweeper.stop()
        if !(await engine.waitUntilIdle(timeout: .milliseconds(Int64(settings.timeouts.drainSeconds * 1000)))) {
            logger.log(.warning, "chains still running at shutdown", ["running": .int(engine.runningChains)])
        }
        upstream.shutdown()
        logger.log(.info, "stopped")
        logger.flush()
    }

    /// Starts, serves until SIGTERM or SIGINT, then drains.
    public func run() async throws {
        try start()
        await Self.waitForTerminationSignal()
        await shutdown()
    }

    // MARK: - Building

    static func makeEngine(
        configuration: LoadedConfiguration, extensions: SwiftExtensions, client: any UpstreamClient, metrics: ServerMetrics,
        logger: JSONLogger? = nil
    ) throws -> ViewEngine {
        let settings = configuration.settings
        let builder = BlueprintBuilder(
            settings: settings, schemas: configuration.schemas, toggles: configuration.toggles, swift: extensions,
            client: client, freshness: RemoteFreshness(capacity: max(1, settings.upstream.cacheEntries)), logger: logger)
        let features = configuration.features.map { definition in
            let info = FeatureInfo(identifier: definition.identifier, title: definition.title, localizedTitles: definition.titles)
            let blueprints = builder.build(definition.operations, feature: definition, path: "operations")
            return Feature(
                identifier: definition.identifier, title: definition.title, localizedTitles: definition.titles,
                predicate: definition.predicate,
                operationFactories: [
                    ConfiguredOperationFactory(
                        blueprints: blueprints, feature: info, allowToggleOverride: settings.allowToggleOverride)
                ],
                reloadPolicy: definition.reloadPolicy, schemaIdentifier: definition.schema,
                actionHandler: definition.vetoedActions.isEmpty
                    ? nil : VetoListActionHandler(vetoed: Set(definition.vetoedActions)))
        }
        var factories: [(namespace: String, factory: any ActionFactory)] = []
        for (namespace, definition) in configuration.actions {
            switch definition {
            case .remote(let url, let timeoutMs, let headers):
                factories.append((
                    namespace,
                    RemoteActionFactory(
                        namespace: namespace, url: url, timeout: .milliseconds(timeoutMs ?? settings.upstream.timeoutMs),
                        headers: headers, client: client)
                ))
            case .swift(let name):
                guard let factory = extensions.actionFactories[name] else {
                    throw ConfigurationError(issues: [
                        ConfigIssue(file: "actions.json", path: "$.\(namespace).name", message: "no Swift action factory is registered as '\(name)'")
                    ])
                }
                factories.append((namespace, factory))
            }
        }
        do {
            let registry = try FeatureRegistry(features: features)
            let actions = try ActionRegistry(factories: factories)
            let engineConfiguration = ViewEngine.Configuration(
                operationDeadline: .milliseconds(Int64(settings.timeouts.operationSeconds * 1000)),
                componentDefaults: settings.components, maxSessions: settings.sessions.max,
                sessionIdleTimeout: .milliseconds(Int64(settings.sessions.idleSeconds * 1000)),
                memoEntries: settings.caches.memoEntries, memoBytes: settings.caches.memoBytes,
                maxPages: settings.sessions.maxPages,
                chainObserver: { report in
                    // A memo hit ran nothing: counted apart, so the duration histogram shows runs only.
                    if !report.timings.isEmpty, report.timings.allSatisfy(\.memoized) {
                        metrics.chainMemoHits.labels(report.featureIdentifier).increment()
                        return
                    }
                    var total = Duration.zero
                    for timing in report.timings where !timing.memoized {
                        total += timing.duration
                        metrics.operationDuration.labels(report.featureIdentifier, timing.name).observe(timing.duration)
                        if timing.failed { metrics.operationErrors.labels(report.featureIdentifier, timing.name).increment() }
                    }
                    metrics.chainDuration.labels(report.featureIdentifier).observe(total)
                })
            return ViewEngine(features: registry, actions: actions, configuration: engineConfiguration)
        } catch let error as FeatureRegistry.ValidationError {
            throw ConfigurationError(issues: [ConfigIssue(file: "features/", path: "$.id", message: error.description)])
        } catch let error as ActionRegistry.ValidationError {
            throw ConfigurationError(issues: [ConfigIssue(file: "actions.json", path: "$", message: error.description)])
        }
    }

    static func httpConfiguration(_ settings: ServerSettings) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.host = settings.host
        configuration.port = settings.port
        configuration.limits.requestLineBytes = settings.limits.requestLineBytes
        configuration.limits.headerBytes = settings.limits.headerBytes
        configuration.limits.headerCount = settings.limits.headerCount
        configuration.limits.bodyBytes = settings.limits.bodyBytes
        configuration.limits.connections = settings.limits.connections
        configuration.timeouts.header = .milliseconds(Int64(settings.timeouts.headerSeconds * 1000))
        configuration.timeouts.body = .milliseconds(Int64(settings.timeouts.bodySeconds * 1000))
        configuration.timeouts.idle = .milliseconds(Int64(settings.timeouts.idleSeconds * 1000))
        configuration.timeouts.drain = .milliseconds(Int64(settings.timeouts.drainSeconds * 1000))
        configuration.gzip.minBytes = settings.gzip.minBytes
        configuration.gzip.level = settings.gzip.level
        return configuration
    }

    static func registerCollectedMetrics(metrics: ServerMetrics, engine: ViewEngine, http: HTTPServer, upstream: CurlUpstreamClient) {
        let sessions = engine.sessions
        metrics.registry.collectedGauge("hub_sessions_active", help: "Live view sessions.") {
            [(labels: [], value: Double(sessions.statistics.active))]
        }
        metrics.registry.collectedCounter("hub_sessions_ended_total", help: "Sessions that ended, by reason.") {
            let statistics = sessions.statistics
            return [
                (labels: [("reason", "evicted")], value: Double(statistics.evicted)),
                (labels: [("reason", "expired")], value: Double(statistics.expired)),
                (labels: [("reason", "deleted")], value: Double(statistics.ended)),
                (labels: [("reason", "failed")], value: Double(statistics.failed)),
            ]
        }
        metrics.registry.collectedCounter(
            "hub_sessions_rebuilt_total", help: "Sessions rebuilt from their token, by why this process did not hold them."
        ) {
            let statistics = sessions.statistics
            return [
                (labels: [("reason", "evicted")], value: Double(statistics.rebuiltEvicted)),
                (labels: [("reason", "expired")], value: Double(statistics.rebuiltExpired)),
                (labels: [("reason", "unknown")], value: Double(statistics.rebuiltUnknown)),
            ]
        }
        metrics.registry.collectedGauge(
            "hub_sessions_protected", help: "Live sessions used since they opened (never evicted by unused ones)."
        ) { [(labels: [], value: Double(sessions.statistics.protected))] }
        metrics.registry.collectedCounter("hub_sessions_created_total", help: "Sessions stored (opened, rebuilt or first used).") {
            [(labels: [], value: Double(sessions.statistics.created))]
        }
        metrics.registry.collectedGauge("hub_open_connections", help: "Open client connections.") {
            [(labels: [], value: Double(http.openConnections))]
        }
        metrics.registry.collectedCounter("hub_upstream_connections_opened_total", help: "Upstream connections libcurl opened.") {
            [(labels: [], value: Double(upstream.statistics.connectionsOpened))]
        }
    }

    /// Suspends until SIGTERM or SIGINT.
    static func waitForTerminationSignal() async {
        await TerminationSignal.wait()
    }
}
