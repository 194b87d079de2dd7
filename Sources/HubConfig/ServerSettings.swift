import HubEngine
import HubHTTP
import HubLogging
import HubModel
import HubOperations
import HubPrimitives
import HubUpstream

/// `Config/server.json`: every key optional, defaults as DESIGN.md "Config format v1". The
/// defaults of what the HTTP server, the upstream client and the engine read are theirs
/// (``HTTPServerConfiguration``, ``UpstreamConfiguration``, ``ViewEngine/Configuration``): one
/// source for each number.
public struct ServerSettings: Sendable, Equatable {
    /// The HTTP server's defaults.
    package static let httpDefaults = HTTPServerConfiguration()
    /// The upstream client's defaults.
    package static let upstreamDefaults = UpstreamConfiguration()
    /// The engine's defaults (sessions, chain memo, operation deadline, token age).
    package static let engineDefaults = ViewEngine.Configuration()

    public struct Limits: Sendable, Equatable {
        public var requestLineBytes = httpDefaults.limits.requestLineBytes
        public var headerBytes = httpDefaults.limits.headerBytes
        public var headerCount = httpDefaults.limits.headerCount
        public var bodyBytes = httpDefaults.limits.bodyBytes
        public var jsonDepth = 64
        public var connections = httpDefaults.limits.connections
        /// Server-Sent Events streams one session may have open at once (more: 429).
        public var sseListenersPerSession = 8
        /// Server-Sent Events streams open at once across all sessions (more: 503); at most `connections`.
        public var sseStreams = 5000
        /// New sessions one client may store (opened, rebuilt from a token, a lazy token's first
        /// use) and revocations it may record: a token bucket (more: 429).
        public var sessionsPerClient = RateLimit(perSecond: 20, burst: 100)
        /// Server-Sent Events streams one client may have open at once (more: 429).
        public var sseStreamsPerClient = 32
        /// `POST /action` requests one client may make: a token bucket (more: 429 `too_many_actions`).
        public var actionsPerClient = RateLimit(perSecond: 20, burst: 60)
        /// Used sessions one client may hold, protected from eviction; `nil` (the default): 1% of
        /// `sessions.max`, at least 16 (``ServerSettings/protectedSessionsPerClient``).
        public var protectedSessionsPerClient: Int?
        /// The prefix length that makes one IPv6 client (a host is given a whole /64).
        public var clientIPv6Prefix = 64
        /// Bytes the patch history of `?patch=json-patch` listeners may keep in all (views and
        /// patches, least recently used out; 0: none, every listener gets full views).
        public var patchHistoryBytes = 32 << 20
    }

    public struct Timeouts: Sendable, Equatable {
        public var headerSeconds = httpDefaults.timeouts.header.inSeconds
        public var bodySeconds = httpDefaults.timeouts.body.inSeconds
        public var idleSeconds = httpDefaults.timeouts.idle.inSeconds
        public var operationSeconds = engineDefaults.operationDeadline.inSeconds
        public var drainSeconds = httpDefaults.timeouts.drain.inSeconds
        /// On SIGTERM, how long the server keeps serving (and accepting) with `/ready` at 503
        /// before it closes its listener: the time a balancer needs to notice (0: at once).
        public var drainDelaySeconds: Double = 0
        /// The longest an event stream stays open before the server ends it (0: no limit). The
        /// client reconnects with `Last-Event-ID` through the balancer, so behind replicas a
        /// stream that was opened elsewhere while its session's replica was away goes back to it,
        /// and streams spread over replicas added since. Each stream's limit is drawn between 80%
        /// and 100% of this, so streams opened together do not all reconnect together.
        public var streamSeconds: Double = 600
    }

    public struct Sessions: Sendable, Equatable {
        public var max = engineDefaults.maxSessions
        /// Most bytes the live sessions may hold, as they estimate it; `nil`: no byte cap (only
        /// ``max``). Past it, unused sessions are evicted as past ``max``.
        public var maxBytes: Int?
        public var idleSeconds = engineDefaults.sessionIdleTimeout.inSeconds
        /// Next pages a session may load; past it `POST /view/next-page` changes nothing.
        public var maxPages = engineDefaults.maxPages
        /// How long a session token is accepted after it was issued.
        public var tokenMaxAgeSeconds = engineDefaults.tokenMaxAge.inSeconds
        /// A file holding the signing keys, one per line, the signing key first (a Kubernetes
        /// Secret); relative to the config directory. `HUB_SESSION_KEYS` wins over it.
        public var keyFile: String?
        /// The keys of `HUB_SESSION_KEYS`, as written (never logged).
        public var keyTexts: [String] = []
    }

    /// Memory the shared caches may use (estimated from the JSON size of what they hold).
    public struct Caches: Sendable, Equatable {
        /// Rendered views (JSON, gzip) shared across requests.
        public var renderBytes = 64 << 20
        /// Memoized chain results.
        public var memoBytes = engineDefaults.memoBytes
        /// Memoized chain results kept at most (0 turns the memo off).
        public var memoEntries = engineDefaults.memoEntries
    }

    public struct Upstream: Sendable, Equatable {
        public var timeoutMs = Int(upstreamDefaults.timeout.inMilliseconds)
        public var connectTimeoutMs = Int(upstreamDefaults.connectTimeout.inMilliseconds)
        public var maxConnectionsPerHost = upstreamDefaults.maxConnectionsPerHost
        public var maxResponseBytes = upstreamDefaults.maxResponseBytes
        public var cacheEntries = upstreamDefaults.cacheEntries
    }

    /// `gzip`: the HTTP server's own settings (``RepresentationMiddleware``).
    public typealias Gzip = HTTPServerConfiguration.Gzip

    /// Config hot reload (`reload`): SIGHUP always reloads; `watch` also reloads when a file
    /// in the config directory changes, once writes have been quiet for `debounceMs`.
    public struct Reload: Sendable, Equatable {
        public var watch = true
        public var debounceMs = 100
        /// Chains a reload re-runs at once (sessions followed over SSE; the others re-run on their
        /// next request). Default: `upstream.maxConnectionsPerHost`.
        public var maxConcurrentReruns = upstreamDefaults.maxConnectionsPerHost
    }

    /// Log levels (HubLogging's ``HubLogging/LogLevel``).
    public typealias LogLevel = HubLogging.LogLevel
    /// Log line formats (HubLogging's ``HubLogging/LogFormat``).
    public typealias LogFormat = HubLogging.LogFormat

    public var host = httpDefaults.host
    public var port = httpDefaults.port
    /// Which event loop takes a new connection (``HTTPServerConfiguration/Balancing``).
    public var connectionBalancing = httpDefaults.balancing
    public var limits = Limits()
    public var timeouts = Timeouts()
    public var sessions = Sessions()
    public var caches = Caches()
    public var upstream = Upstream()
    public var gzip = Gzip()
    public var components = ComponentDefaults.standard
    /// `components.killSwitches`: components switched off for client versions (``KillSwitches``).
    package var killSwitches = KillSwitches()
    /// `debug.explain`: whether `GET /view?explain=1` answers how each operation made the view
    /// (default `false`: the parameter is then `400 explain_disabled`).
    public var explainEnabled = false
    public var logLevel = LogLevel.info
    public var logFormat = LogFormat.json
    /// Which requests write an access log line (`log.access`).
    public var accessLog = AccessLogPolicy()
    /// Whether `Hub-Toggle` may force toggle values.
    public var allowToggleOverride = true
    /// Cross-origin access for web apps; nil (the default) answers no CORS headers.
    public var cors: CORSPolicy?
    /// Config hot reload.
    public var reload = Reload()
    /// Whether `GET /preview` (the browser preview, docs/PREVIEW.md) is served
    /// (`preview.enabled`, default `true`); off, `/preview` is 404 `route_not_found`.
    public var previewEnabled = true
    /// Where the server keeps what it makes itself (a generated session key): `HUB_DATA_DIR`,
    /// else `dataDirectory`, relative to the working directory.
    public var dataDirectory = ".hub-data"
    /// Proxies whose `X-Forwarded-For` names the client (for per-client limits).
    public var trustedProxies: [IPNetwork] = []

    /// `limits.protectedSessionsPerClient`, or its default: 1% of `sessions.max`, at least 16.
    public var protectedSessionsPerClient: Int {
        limits.protectedSessionsPerClient ?? max(16, sessions.max / 100)
    }
    /// Where operations' and actions' state lives (`state`).
    public var state = StateStoreSettings()
    /// Who the user is (`identity`): bearer JWTs, a trusted gateway's header (docs/SECURITY.md).
    public var identity = IdentitySettings()
    /// The languages the server speaks (`locales`, docs/LOCALIZATION.md); nil (the default): no
    /// locale is negotiated.
    public var locales: LocaleSettings?
    /// Signed `POST /invalidate` (`invalidation`); off without a secret.
    public var invalidation = InvalidationSettings()

    public init() {}

    /// The accepted range of every number without a range of its own above.
    package enum Ranges {
        /// Request, operation and drain deadlines: 1 ms to an hour.
        package static let requestTimeout: ClosedRange<Double> = 0.001...3600
        /// A kept-alive connection's idle time: 1 ms to a day.
        package static let connectionIdle: ClosedRange<Double> = 0.001...86_400
        /// A session's idle time: 1 ms to 30 days.
        package static let sessionIdle: ClosedRange<Double> = 0.001...2_592_000
        /// A feature's `reload.maxAgeSeconds`: 1 ms to a year.
        package static let maxAge: ClosedRange<Double> = 0.001...31_536_000
        /// Byte limits: 1 byte to 1 GiB.
        package static let bytes: ClosedRange<Int> = 1...1 << 30
        /// `sessions.maxBytes`: 1 MiB to 1 TiB.
        package static let sessionBytes: ClosedRange<Int> = 1 << 20...1 << 40
    }

    /// Reads `server.json`; unknown keys are warnings, wrong types and ranges errors.
    package init(json: JSONValue?, reader: ConfigReader) {
        guard let json else { return }
        guard let object = reader.object(json, at: "$") else { return }
        let root = reader.removingSchemaReference(object)
        reader.checkKeys(
            root, at: "$",
            known: [
                "host", "port", "connectionBalancing", "limits", "timeouts", "sessions", "caches", "upstream", "gzip", "components", "log",
                "allowToggleOverride", "cors", "reload", "preview", "dataDirectory", "trustedProxies", "debug", "state",
                "identity", "locales", "invalidation",
            ])
        if root["locales"] != nil { locales = LocaleSettings(root["locales"], reader: reader) }
        if let identity = reader.object(root["identity"], at: "$.identity") { self.identity = IdentitySettings(identity, reader: reader) }
        if let object = reader.object(root["invalidation"], at: "$.invalidation") {
            invalidation = InvalidationSettings(object, reader: reader)
        }
        if let debug = reader.object(root["debug"], at: "$.debug") {
            reader.checkKeys(debug, at: "$.debug", known: ["explain"])
            if let flag = reader.bool(debug, "explain", at: "$.debug") { explainEnabled = flag }
        }
        if let directory = reader.string(root, "dataDirectory", at: "$") { dataDirectory = directory }
        if let state = reader.object(root["state"], at: "$.state") { self.state = StateStoreSettings(state, reader: reader) }
        if let proxies = reader.stringList(root, "trustedProxies", at: "$") {
            for (index, text) in proxies.enumerated() {
                if let network = IPNetwork(text) { trustedProxies.append(network) } else {
                    reader.error("$.trustedProxies[\(index)]", "must be an IP address or a CIDR network (10.0.0.0/8, fd00::/8)")
                }
            }
        }
        if let host = reader.string(root, "host", at: "$") { self.host = host }
        if let port = reader.int(root, "port", at: "$", range: 0...65535) { self.port = port }
        if let value = reader.string(root, "connectionBalancing", at: "$") {
            if let balancing = HTTPServerConfiguration.Balancing(rawValue: value) { connectionBalancing = balancing } else {
                reader.error("$.connectionBalancing", "must be idle-first or round-robin")
            }
        }
        if let flag = reader.bool(root, "allowToggleOverride", at: "$") { allowToggleOverride = flag }

        if let limits = reader.object(root["limits"], at: "$.limits") { self.limits.read(limits, reader: reader, at: "$.limits") }
        if let timeouts = reader.object(root["timeouts"], at: "$.timeouts") {
            let path = "$.timeouts"
            reader.checkKeys(timeouts, at: path, known: ["headerSeconds", "bodySeconds", "idleSeconds", "operationSeconds", "drainSeconds", "drainDelaySeconds", "streamSeconds"])
            if let value = reader.seconds(timeouts, "drainDelaySeconds", at: path, range: 0...300) { self.timeouts.drainDelaySeconds = value }
            if let value = reader.seconds(timeouts, "streamSeconds", at: path, range: 0...86_400) { self.timeouts.streamSeconds = value }
            if let value = reader.seconds(timeouts, "headerSeconds", at: path, range: Ranges.requestTimeout) { self.timeouts.headerSeconds = value }
            if let value = reader.seconds(timeouts, "bodySeconds", at: path, range: Ranges.requestTimeout) { self.timeouts.bodySeconds = value }
            if let value = reader.seconds(timeouts, "idleSeconds", at: path, range: Ranges.connectionIdle) { self.timeouts.idleSeconds = value }
            if let value = reader.seconds(timeouts, "operationSeconds", at: path, range: Ranges.requestTimeout) { self.timeouts.operationSeconds = value }
            if let value = reader.seconds(timeouts, "drainSeconds", at: path, range: Ranges.requestTimeout) { self.timeouts.drainSeconds = value }
        }
        if let sessions = reader.object(root["sessions"], at: "$.sessions") {
            let path = "$.sessions"
            reader.checkKeys(sessions, at: path, known: ["max", "maxBytes", "idleSeconds", "maxPages", "tokenMaxAgeSeconds", "keyFile"])
            if let value = reader.seconds(sessions, "tokenMaxAgeSeconds", at: path, range: 60...31_536_000) {
                self.sessions.tokenMaxAgeSeconds = value
            }
            if let value = reader.string(sessions, "keyFile", at: path) { self.sessions.keyFile = value }
            if let value = reader.int(sessions, "maxPages", at: path, range: 0...100_000) { self.sessions.maxPages = value }
            if let value = reader.int(sessions, "max", at: path, range: 1...100_000_000) { self.sessions.max = value }
            if let value = reader.int(sessions, "maxBytes", at: path, range: Ranges.sessionBytes) { self.sessions.maxBytes = value }
            if let value = reader.seconds(sessions, "idleSeconds", at: path, range: Ranges.sessionIdle) { self.sessions.idleSeconds = value }
        }
        if let caches = reader.object(root["caches"], at: "$.caches") {
            let path = "$.caches"
            reader.checkKeys(caches, at: path, known: ["renderBytes", "memoBytes", "memoEntries"])
            if let value = reader.int(caches, "renderBytes", at: path, range: Ranges.bytes) { self.caches.renderBytes = value }
            if let value = reader.int(caches, "memoBytes", at: path, range: Ranges.bytes) { self.caches.memoBytes = value }
            if let value = reader.int(caches, "memoEntries", at: path, range: 0...1_000_000) { self.caches.memoEntries = value }
        }
        if let upstream = reader.object(root["upstream"], at: "$.upstream") {
            let path = "$.upstream"
            reader.checkKeys(upstream, at: path, known: ["timeoutMs", "connectTimeoutMs", "maxConnectionsPerHost", "maxResponseBytes", "cacheEntries"])
            if let value = reader.int(upstream, "timeoutMs", at: path, range: 1...3_600_000) { self.upstream.timeoutMs = value }
            if let value = reader.int(upstream, "connectTimeoutMs", at: path, range: 1...3_600_000) { self.upstream.connectTimeoutMs = value }
            if let value = reader.int(upstream, "maxConnectionsPerHost", at: path, range: 1...10_000) { self.upstream.maxConnectionsPerHost = value }
            if let value = reader.int(upstream, "maxResponseBytes", at: path, range: Ranges.bytes) { self.upstream.maxResponseBytes = value }
            if let value = reader.int(upstream, "cacheEntries", at: path, range: 0...10_000_000) { self.upstream.cacheEntries = value }
        }
        if let gzip = reader.object(root["gzip"], at: "$.gzip") {
            let path = "$.gzip"
            reader.checkKeys(gzip, at: path, known: ["minBytes", "level"])
            if let value = reader.int(gzip, "minBytes", at: path, range: 0...Ranges.bytes.upperBound) { self.gzip.minBytes = value }
            if let value = reader.int(gzip, "level", at: path, range: 0...9) { self.gzip.level = value }
        }
        if let components = reader.object(root["components"], at: "$.components") {
            let path = "$.components"
            reader.checkKeys(components, at: path, known: ["defaultNamespace", "defaultName", "defaultCategory", "killSwitches"])
            killSwitches = KillSwitches.read(components["killSwitches"], reader: reader, at: "\(path).killSwitches")
            if let value = reader.string(components, "defaultNamespace", at: path) { self.components.namespace = value }
            if let value = reader.string(components, "defaultName", at: path) { self.components.name = value }
            if let value = reader.string(components, "defaultCategory", at: path) { self.components.category = value }
        }
        var reruns: Int?
        if let reload = reader.object(root["reload"], at: "$.reload") {
            reader.checkKeys(reload, at: "$.reload", known: ["watch", "debounceMs", "maxConcurrentReruns"])
            if let value = reader.int(reload, "maxConcurrentReruns", at: "$.reload", range: 1...10_000) {
                self.reload.maxConcurrentReruns = value
                reruns = value
            }
            if let value = reader.bool(reload, "watch", at: "$.reload") { self.reload.watch = value }
            if let value = reader.int(reload, "debounceMs", at: "$.reload", range: 0...10_000) { self.reload.debounceMs = value }
        }
        // The default follows the upstream's per-host cap: a reload opens no more connections.
        if reruns == nil { self.reload.maxConcurrentReruns = self.upstream.maxConnectionsPerHost }
        if root["cors"] != nil { cors = CORSSettingsReader.read(root["cors"], reader: reader) }
        if let preview = reader.object(root["preview"], at: "$.preview") {
            reader.checkKeys(preview, at: "$.preview", known: ["enabled"])
            if let flag = reader.bool(preview, "enabled", at: "$.preview") { previewEnabled = flag }
        }
        if let log = reader.object(root["log"], at: "$.log") {
            let path = "$.log"
            reader.checkKeys(log, at: path, known: ["level", "format", "access"])
            if log["access"] != nil { accessLog = AccessLogPolicy(json: log["access"], reader: reader, at: "\(path).access") }
            if let value = reader.string(log, "level", at: path) {
                if let level = LogLevel(rawValue: value) { logLevel = level } else {
                    reader.error("\(path).level", "must be one of debug, info, warning, error")
                }
            }
            if let value = reader.string(log, "format", at: path) {
                if let format = LogFormat(rawValue: value) { logFormat = format } else {
                    reader.error("\(path).format", "must be json or text")
                }
            }
        }
    }

    /// Applies `HUB_HOST`, `HUB_PORT`, `HUB_LOG_LEVEL`, `HUB_LOG_FORMAT`, `HUB_CONFIG_WATCH`,
    /// `HUB_SESSION_KEYS`, `HUB_DATA_DIR`, `HUB_STATE_BACKEND` and `HUB_STATE_URL` (`HUB_CONFIG` picks the directory and is read by the
    /// loader). Invalid values are issues naming the variable.
    package mutating func applyEnvironment(_ environment: [String: String], reader: ConfigReader) {
        if let directory = environment["HUB_DATA_DIR"], !directory.isEmpty { dataDirectory = directory }
        state.applyEnvironment(environment, reader: reader)
        invalidation.applyEnvironment(environment, reader: reader)
        if let keys = environment["HUB_SESSION_KEYS"], !keys.isEmpty {
            let texts = keys.split(separator: ",").map(String.init)
            do {
                _ = try SessionKeys(texts: texts)
                sessions.keyTexts = texts
            } catch {
                reader.error("HUB_SESSION_KEYS", "\(error.description) (comma-separated keys, hex or base64url, 32 bytes or more each)")
            }
        }
        if let host = environment["HUB_HOST"], !host.isEmpty { self.host = host }
        if let portText = environment["HUB_PORT"], !portText.isEmpty {
            if let port = Int(portText), (0...65535).contains(port) { self.port = port } else {
                reader.error("HUB_PORT", "must be a port number between 0 and 65535, got '\(portText)'")
            }
        }
        if let watchText = environment["HUB_CONFIG_WATCH"], !watchText.isEmpty {
            switch watchText.lowercased() {
            case "1", "true", "yes", "on": reload.watch = true
            case "0", "false", "no", "off": reload.watch = false
            default: reader.error("HUB_CONFIG_WATCH", "must be 1 or 0 (true or false), got '\(watchText)'")
            }
        }
        if let formatText = environment["HUB_LOG_FORMAT"], !formatText.isEmpty {
            if let format = LogFormat(rawValue: formatText.lowercased()) { logFormat = format } else {
                reader.error("HUB_LOG_FORMAT", "must be json or text, got '\(formatText)'")
            }
        }
        if let levelText = environment["HUB_LOG_LEVEL"], !levelText.isEmpty {
            if let level = LogLevel(rawValue: levelText.lowercased()) { logLevel = level } else {
                reader.error("HUB_LOG_LEVEL", "must be one of debug, info, warning, error, got '\(levelText)'")
            }
        }
    }
}
