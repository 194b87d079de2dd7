import HubEngine
import HubModel
import HubUpstream
import HubSync
import Synchronization

/// `remote`: fetches JSON from an upstream through libcurl and merges it into the builder
/// (a view object, or a list of body components), with the operation's or the feature's
/// schema. Paginated remote operations fetch again for each next page (`{page}` = 1, 2, ...).
///
/// One instance per session: `prepare` starts the main fetch as the chain starts, so
/// independent upstreams overlap; `perform` waits for it and applies it in chain order.
final class RemoteOperation: ContentOperationWithPaginatedContent {
    struct Settings: Sendable {
        let definition: RemoteOperationDefinition
        let schema: JSONSchema
        let client: any UpstreamClient
        let freshness: RemoteFreshness
        let defaultTimeout: Duration
        let jsonDepth: Int
        /// Failures are logged at warning level, or debug for `optional` operations.
        let logger: JSONLogger?
    }

    let settings: Settings
    /// Fetches started by `prepare`, by URL; made by the first `prepare` (an operation made only
    /// for its memo key, by every memoized `GET /view?uri=`, never allocates it).
    private let prefetches = AtomicLazyReference<Locked<[String: Task<[UInt8], any Error>]>>()

    private var prefetched: Locked<[String: Task<[UInt8], any Error>]> {
        prefetches.load() ?? prefetches.storeIfNil(Locked([:]))
    }

    init(settings: Settings) {
        self.settings = settings
    }

    var name: String { "remote" }

    /// The expanded URL, refused when the client's values would take it out of bounds.
    func url(for context: ContentContext, page: Int) throws(UnsafeURLError) -> String {
        try settings.definition.url.resolve(
            URLTemplate.Values(request: context.request, page: page, sessionID: context.sessionID))
    }

    func prepare(context: ContentContext) {
        guard let url = try? url(for: context, page: 0) else { return }
        let trace = Self.traceHeaders(context)
        let task = Task { try await self.fetch(url, trace: trace) }
        let replaced = prefetched.withLock { $0.updateValue(task, forKey: url) }
        replaced?.cancel()
    }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let url = try url(for: context, page: 0)
        do {
            let body: [UInt8]
            // Take this run's prefetch; any other is stale (a run that did not reach this
            // operation): cancel it rather than let it hold a connection and its body.
            let taken: (task: Task<[UInt8], any Error>?, stale: [Task<[UInt8], any Error>])? =
                prefetches.load()?.withLock { prefetched in
                    let task = prefetched.removeValue(forKey: url)
                    let stale = Array(prefetched.values)
                    prefetched.removeAll()
                    return (task, stale)
                }
            let (task, stale) = taken ?? (nil, [])
            for other in stale { other.cancel() }
            if let task {
                body = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            } else {
                body = try await fetch(url, trace: Self.traceHeaders(context))
            }
            try apply(body, to: &builder)
        } catch {
            log(error, url: url, context: context)
            throw error
        }
    }

    func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws {
        guard settings.definition.paginated else { return }
        let url = try url(for: context, page: pageIndex)
        do {
            try apply(try await fetch(url, trace: Self.traceHeaders(context)), to: &builder)
        } catch {
            log(error, url: url, context: context)
            throw error
        }
    }

    /// The error flows on as `previousError` either way; `optional` only lowers the log level.
    private func log(_ error: any Error, url: String, context: ContentContext) {
        guard let logger = settings.logger, !(error is CancellationError) else { return }
        let level: JSONLogger.Level = settings.definition.optional ? .debug : .warning
        guard logger.isEnabled(level) else { return }
        let detail = (error as? UpstreamError).map { $0.logDetail ?? $0.description } ?? "\(error)"
        logger.log(
            level, "remote operation failed",
            ["feature": .string(context.feature.identifier), "operation": .int(context.operationIndex),
             "url": .string(Self.loggableURL(url)), "page": .int(context.pageIndex), "error": .string(detail),
             "trace_id": .string(TraceContext.traceID(of: context.request.header(TraceContext.parentHeader)) ?? ""),
             "session": .string(SessionIdentifier.logTag(context.sessionID))])
    }

    /// The URL as logs may show it: without its query and fragment (config secrets and
    /// `{header.*}` values travel there) and without user information.
    static func loggableURL(_ url: String) -> String {
        var text = Substring(url)
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") {
            let authorityStart = text.index(colon, offsetBy: 3)
            let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
                text = text[..<authorityStart] + text[text.index(after: at)...]
            }
        }
        return String(text)
    }

    /// Deterministic while the upstream response for this URL is fresh.
    func memoizationKey(context: ContentContext) -> String? {
        guard settings.definition.method == "GET" else { return nil }
        guard let url = try? url(for: context, page: 0) else { return nil }
        guard let fingerprint = settings.freshness.fingerprint(for: url) else { return nil }
        return "remote:\(settings.schema.identifier):\(url)#\(fingerprint)"
    }

    private func apply(_ body: [UInt8], to builder: inout ViewModelBuilder) throws {
        let value: JSONValue
        do {
            value = try JSONParser(options: .init(maxDepth: settings.jsonDepth, duplicateKeys: .keepLast)).parse(body)
        } catch {
            throw UpstreamError.invalidJSON(detail: error.description)
        }
        guard value.objectValue != nil || value.arrayValue != nil else {
            throw UpstreamError.invalidJSON(detail: "the body is neither a view object nor a list of components")
        }
        try builder.add(json: value, schema: settings.schema)
    }

    /// One fetch with bounded retries (idempotent GETs only) and exponential backoff.
    /// A child span of the request's trace for one fetch (W3C trace context).
    static func traceHeaders(_ context: ContentContext) -> [(name: String, value: String)] {
        TraceContext.upstreamHeaders(
            traceParent: context.request.header(TraceContext.parentHeader),
            traceState: context.request.header(TraceContext.stateHeader))
    }

    private func fetch(_ url: String, trace: [(name: String, value: String)]) async throws -> [UInt8] {
        let definition = settings.definition
        var request = UpstreamRequest(url: url)
        request.method = definition.method
        request.headers = definition.headers + [(name: "Accept", value: "application/json")]
        request.timeout = definition.timeoutMs.map { .milliseconds($0) } ?? settings.defaultTimeout
        request.traceHeaders = trace
        var attempt = 0
        while true {
            do {
                let response = try await settings.client.sendExpectingSuccess(request)
                settings.freshness.record(url: url, body: response.body, freshUntil: response.freshUntil)
                return response.body
            } catch let error as UpstreamError where attempt < definition.retries && definition.method == "GET"
                && Self.isRetryable(error)
            {
                attempt += 1
                try await Task.sleep(for: .milliseconds(50 << (attempt - 1)))
            }
        }
    }

    static func isRetryable(_ error: UpstreamError) -> Bool {
        switch error.kind {
        case .timeout, .connectFailed, .connectionReset: return true
        case .httpStatus(let status): return status >= 500
        default: return false
        }
    }
}
