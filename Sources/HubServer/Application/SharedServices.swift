import HubLogging
import HubEngine
import HubHTTP
import HubIdentity
import HubMetrics
import HubModel
import HubSync
import Synchronization

/// What every endpoint shares: the engine, settings, caches, metrics, logs and the readiness
/// flag, built once at start-up (held as `shared`; "state" is the durable store's word).
final class SharedServices: Sendable {
    let engine: ViewEngine
    let settings: ServerSettings
    let renderCache: RenderCache
    let fallback: ComponentFallback
    let metrics: ServerMetrics
    let logger: JSONLogger
    /// What crosses from HTTP requests into the engine (replaced by a config reload).
    var bridge: RequestBridge { bridgeStorage.value }
    private let bridgeStorage: Striped<RequestBridge>
    /// `components.killSwitches` now (replaced by a config reload).
    var killSwitches: KillSwitches { killSwitchStorage.value }
    private let killSwitchStorage: Striped<KillSwitches>
    /// The keyed ETags and event ids of rendered views (``ViewTags``, from the session keys).
    let viewTags: ViewTags
    /// Recent views of patch listeners and the patches between them (``JSONPatchHistory``).
    let jsonPatchHistory: JSONPatchHistory
    /// The rendering each session's listeners send now, made by one of them for all.
    let listenerRenderings = ListenerRenderings()
    /// Open event streams (ended when a drain starts).
    let streams = StreamRegistry()
    /// The caps on Server-Sent Events streams (`limits.sseListenersPerSession`,
    /// `limits.sseStreamsPerClient`, `limits.sseStreams`).
    let streamLimiter: StreamLimiter
    /// Who a request's client is (the peer, or what a trusted proxy names).
    let clientAddress: ClientAddress
    /// `limits.sessionsPerClient`: sessions (and revocations, HEAD and explain runs) a client may add.
    let sessionLimiter: ClientRateLimiter
    /// `limits.actionsPerClient`: `POST /action` requests a client may make.
    let actionLimiter: ClientRateLimiter
    /// `hub_client_limited_total{limit}`'s `sessions_per_client` child.
    private let sessionsRefused: Counter
    /// `hub_client_limited_total{limit}`'s `actions_per_client` child.
    private let actionsRefused: Counter
    /// The component lists of recent `Hub-Components` headers.
    let componentLists = ParsedHeaders(ComponentList.init(header:))
    let startedAt = ContinuousClock.now
    /// Where the session keys came from, as `/ready` names it (``SessionKeyring/Source/kind``).
    let sessionKeySource: String
    /// Verifies bearer tokens (`identity.jwt`); `nil` when no provider is configured.
    let verifier: TokenVerifier?
    private let draining = Atomic<Bool>(false)

    init(
        engine: ViewEngine, settings: ServerSettings, metrics: ServerMetrics, logger: JSONLogger, bridge: RequestBridge,
        sessionKeySource: String = "generated", verifier: TokenVerifier? = nil
    ) {
        self.engine = engine
        self.verifier = verifier
        self.sessionKeySource = sessionKeySource
        self.viewTags = ViewTags(keys: engine.configuration.sessionKeys)
        self.bridgeStorage = Striped { bridge }
        let killSwitches = settings.killSwitches
        self.killSwitchStorage = Striped { killSwitches }
        self.settings = settings
        self.renderCache = RenderCache(budgetBytes: settings.caches.renderBytes)
        self.fallback = ComponentFallback(defaultFallback: settings.components.componentIdentifier)
        self.metrics = metrics
        self.jsonPatchHistory = JSONPatchHistory(registry: metrics.registry, budgetBytes: settings.limits.patchHistoryBytes)
        self.logger = logger
        let forwarding = IgnoredForwardingReport(registry: metrics.registry, logger: logger)
        self.clientAddress = ClientAddress(
            trustedProxies: settings.trustedProxies, ipv6Prefix: settings.limits.clientIPv6Prefix,
            ignoredForwarding: { peer in forwarding.note(peer: peer) })
        self.sessionLimiter = ClientRateLimiter(limit: settings.limits.sessionsPerClient)
        self.actionLimiter = ClientRateLimiter(limit: settings.limits.actionsPerClient)
        let limited = EdgeMetrics.clientLimited(on: metrics.registry)
        self.sessionsRefused = limited.labels("sessions_per_client")
        self.actionsRefused = limited.labels("actions_per_client")
        self.streamLimiter = StreamLimiter(
            perSession: settings.limits.sseListenersPerSession, perClient: settings.limits.sseStreamsPerClient,
            global: settings.limits.sseStreams, registry: metrics.registry, perClientRefusals: limited.labels("streams_per_client"))
    }

    /// The session admission of `request`'s client (``SessionAdmission``): one token of its
    /// `limits.sessionsPerClient` bucket per session stored; a refusal is counted.
    /// The client is worked out only when a session is about to be stored (most calls never ask).
    /// An admitted session is owned by the client: it holds at most
    /// `limits.protectedSessionsPerClient` used sessions (``SessionOwner``).
    /// `request`'s client for per-client limits: its verified user (``RequestContext/user``),
    /// else its address (``ClientAddress``). Two users behind one address are two clients; one
    /// user on many addresses, one.
    func client(of request: HTTPRequest, context: RequestContext) -> String {
        if let user = context.user { return "user:" + user.digest }
        return clientAddress.of(request)
    }

    func admission(for request: HTTPRequest, context: RequestContext) -> () -> SessionAdmission {
        { [self] in
            let client = client(of: request, context: context)
            guard sessionLimiter.take(client) else {
                sessionsRefused.increment()
                return .refuse(retryAfterSeconds: sessionLimiter.limit.retryAfterSeconds)
            }
            return .admitted(SessionOwner(client))
        }
    }

    /// Takes one token of `request`'s client's `limits.actionsPerClient` bucket; past it throws
    /// `429 too_many_actions` with `Retry-After` (counted). A request with no peer address (made
    /// in process, ``HubApplication/respond(to:)``) comes from no network client and is not limited.
    func admitAction(_ request: HTTPRequest, context: RequestContext) throws {
        guard request.remoteAddress != nil else { return }
        guard actionLimiter.take(client(of: request, context: context)) else {
            actionsRefused.increment()
            let retryAfter = actionLimiter.limit.retryAfterSeconds
            throw HTTPError(
                .tooManyRequests, code: "too_many_actions",
                detail: "this client performed too many actions; try again in \(retryAfter) s",
                headers: ["Retry-After": String(retryAfter)])
        }
    }

    /// Installs the bridge of a reloaded config (the headers it names).
    func replaceBridge(_ bridge: RequestBridge) {
        bridgeStorage.setAll(bridge)
    }

    /// Installs the kill switches of a reloaded config: the next response of every session follows them.
    func replaceKillSwitches(_ killSwitches: KillSwitches) {
        killSwitchStorage.setAll(killSwitches)
    }

    /// What `request`'s client renders (``ClientComponents``), read once per request. Its
    /// `Hub-Client` is read only when the config has kill switches.
    /// The `Hub-Components` header is read in place and parsed once per distinct text
    /// (``ParsedHeaders``).
    func clientComponents(of request: HTTPRequest) -> ClientComponents? {
        let switches = killSwitches
        let killed = switches.rules.isEmpty ? [] : switches.killed(forClient: request.headers["Hub-Client"])
        let listed = componentLists.parsed(field: "Hub-Components", of: request.headers)
        guard listed != nil || !killed.isEmpty else { return nil }
        return ClientComponents(listed: listed, killed: killed)
    }

    /// ``clientComponents(of:)`` of a request an endpoint serves, after refusing a `Hub-Client`
    /// or `Hub-Toggle` longer than a session keeps (``RetainedHeaders/checkServerHeaders(_:)``).
    func requestComponents(of request: HTTPRequest) throws -> ClientComponents? {
        try RetainedHeaders.checkServerHeaders(request.headers)
        return clientComponents(of: request)
    }

    /// `true` once a drain has started (`/ready` answers 503).
    var isDraining: Bool { draining.load(ordering: .relaxed) }

    func beginDraining() { draining.store(true, ordering: .relaxed) }
}
