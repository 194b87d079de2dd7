import HubEngine
import HubHTTP
import HubModel
import HubSync
import Synchronization

/// What every endpoint shares: the engine, settings, caches, metrics, logs and the
/// readiness flag. Built once at start-up.
final class ServerState: Sendable {
    let engine: ViewEngine
    let settings: ServerSettings
    let renderCache: RenderCache
    let fallback: ComponentFallback
    let metrics: ServerMetrics
    let logger: JSONLogger
    /// What crosses from HTTP requests into the engine (replaced by a config reload).
    var bridge: RequestBridge { bridgeStorage.withLock { $0 } }
    private let bridgeStorage: Locked<RequestBridge>
    /// Open event streams (ended when a drain starts).
    let streams = StreamRegistry()
    /// The caps on Server-Sent Events streams (`limits.sseListenersPerSession`, `limits.sseStreams`).
    let streamLimiter: StreamLimiter
    let startedAt = ContinuousClock.now
    private let draining = Atomic<Bool>(false)

    init(engine: ViewEngine, settings: ServerSettings, metrics: ServerMetrics, logger: JSONLogger, bridge: RequestBridge) {
        self.engine = engine
        self.bridgeStorage = Locked(bridge)
        self.settings = settings
        self.renderCache = RenderCache(budgetBytes: settings.caches.renderBytes)
        self.fallback = ComponentFallback(defaultFallback: settings.components.componentIdentifier)
        self.metrics = metrics
        self.logger = logger
        self.streamLimiter = StreamLimiter(
            perSession: settings.limits.sseListenersPerSession, global: settings.limits.sseStreams, registry: metrics.registry)
    }

    /// Installs the bridge of a reloaded config (the headers it names).
    func replaceBridge(_ bridge: RequestBridge) {
        bridgeStorage.withLock { $0 = bridge }
    }

    /// `true` once a drain has started (`/ready` answers 503).
    var isDraining: Bool { draining.load(ordering: .relaxed) }

    func beginDraining() { draining.store(true, ordering: .relaxed) }
}
