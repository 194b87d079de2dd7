import HubLogging
import Foundation
import HubEngine
import HubMetrics
import HubModel
import HubSync
import HubUpstream

/// `remote`: fetches JSON from an upstream through libcurl and merges it into the builder
/// (a view object, or a list of body components), with the operation's or the feature's
/// schema. Paginated remote operations fetch again for each next page (`{page}` = 1, 2, ...).
///
/// One instance per session: `prepare` starts the main fetch as the chain starts, so
/// independent upstreams overlap; `perform` waits for it and applies it in chain order.
/// A GET may stand in last good content for a failing or refreshing upstream
/// (`RemoteOperation+Stale.swift`), and may forward caller headers (``ForwardedHeaders``).
package final class RemoteOperation: ContentOperationWithPaginatedContent {
    package struct Settings: Sendable {
        package let definition: RemoteOperationDefinition
        package let schema: JSONSchema
        package let services: RemoteServices
        package let defaultTimeout: Duration
        package let jsonDepth: Int
        /// Failures are logged at warning level, or debug for `optional` operations.
        package let logger: JSONLogger?

        package init(definition: RemoteOperationDefinition, schema: JSONSchema, services: RemoteServices, defaultTimeout: Duration, jsonDepth: Int, logger: JSONLogger?, strings: StringResolver? = nil) {
            self.definition = definition
            self.schema = schema
            self.services = services
            self.defaultTimeout = defaultTimeout
            self.jsonDepth = jsonDepth
            self.logger = logger
            self.strings = strings
        }
        /// Resolves `{"$t"}` references in the upstream JSON (`locales`); nil: none are.
        package var strings: StringResolver? = nil
    }

    /// What a fetch takes from the run that starts it (`prepare` runs before `perform`).
    package struct Inputs: Sendable {
        /// This server's span of the request's trace (W3C trace context).
        package var trace: [(name: String, value: String)]
        /// The caller's values of the operation's `forwardHeaders`, in config order.
        package var forwarded: [(name: String, value: String)]
        package var feature: String
        /// Reloads the session when content served stale recovers.
        package var session: ActionPerformer
        /// For logs: the operation's index, the session and the request's `traceparent`.
        package var operationIndex: Int
        package var sessionID: String
        package var traceParent: String?
        /// The negotiated locale sent as `Accept-Language` (`sendLocale`); nil: none is sent.
        package var locale: String? = nil
    }

    /// The parsed upstream JSON, and its age when it is last good content standing in.
    package struct Loaded: Sendable {
        package let value: JSONValue
        package let staleAgeSeconds: Int?
    }

    package let settings: Settings
    /// Loads started by `prepare`, by URL; made by the first `prepare` (an operation made only
    /// for its memo key, by every memoized `GET /view?uri=`, never allocates it).
    private let prefetches = WriteOnceReference<Locked<[String: Task<Loaded, any Error>]>>()

    private var prefetched: Locked<[String: Task<Loaded, any Error>]> {
        prefetches.load() ?? prefetches.storeIfNil(Locked([:]))
    }

    package init(settings: Settings) {
        self.settings = settings
    }

    package var name: String { "remote" }

    /// The expanded URL, refused when the client's values would take it out of bounds.
    package func url(for context: ContentContext, page: Int) throws(UnsafeURLError) -> String {
        // The session identifier is read only when the URL names it (reading it marks a memo key
        // as one session's: ``ContentContext/sessionID``).
        let template = settings.definition.url
        return try template.resolve(
            URLTemplate.Values(request: context.request, page: page, sessionID: template.usesSession ? context.sessionID : ""))
    }

    package func inputs(_ context: ContentContext) -> Inputs {
        Inputs(
            trace: Self.traceHeaders(context),
            forwarded: ForwardedHeaders.values(
                settings.definition.forwardHeaders, identity: settings.definition.forwardIdentity, from: context.request),
            feature: context.feature.identifier, session: context.actions, operationIndex: context.operationIndex,
            sessionID: context.sessionID, traceParent: context.request.header(TraceContext.parentHeader),
            locale: sentLocale(context))
    }

    package func prepare(context: ContentContext) {
        guard let url = try? url(for: context, page: 0) else { return }
        let inputs = inputs(context)
        let task = Task { try await self.load(url, inputs) }
        let replaced = prefetched.withLock { $0.updateValue(task, forKey: url) }
        replaced?.cancel()
    }

    package func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let url = try url(for: context, page: 0)
        do {
            let loaded: Loaded
            // Take this run's prefetch; any other is stale (a run that did not reach this
            // operation): cancel it rather than let it hold a connection and its body.
            let taken: (task: Task<Loaded, any Error>?, stale: [Task<Loaded, any Error>])? =
                prefetches.load()?.withLock { prefetched in
                    let task = prefetched.removeValue(forKey: url)
                    let stale = Array(prefetched.values)
                    prefetched.removeAll()
                    return (task, stale)
                }
            let (task, stale) = taken ?? (nil, [])
            for other in stale { other.cancel() }
            if let task {
                loaded = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            } else {
                loaded = try await load(url, inputs(context))
            }
            try apply(loaded, to: &builder, context: context)
            ContentSources.report(url: url, tags: settings.services.tags.tags(for: url))
        } catch {
            log(error, url: url, context: context)
            throw error
        }
    }

    package func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws {
        guard settings.definition.paginated else { return }
        let url = try url(for: context, page: pageIndex)
        do {
            try apply(try await load(url, inputs(context)), to: &builder, context: context)
            ContentSources.report(url: url, tags: settings.services.tags.tags(for: url))
        } catch {
            log(error, url: url, context: context)
            throw error
        }
    }

    /// The error flows on as `previousError` either way; `optional` only lowers the log level.
    package func log(_ error: any Error, url: String, context: ContentContext) {
        log(error, url: url, feature: context.feature.identifier, operation: context.operationIndex,
            page: context.pageIndex, traceParent: context.request.header(TraceContext.parentHeader),
            sessionID: context.sessionID, message: "remote operation failed")
    }

    package func log(
        _ error: any Error, url: String, feature: String, operation: Int, page: Int, traceParent: String?,
        sessionID: String, message: String
    ) {
        guard let logger = settings.logger, !(error is CancellationError) else { return }
        let level: JSONLogger.Level = settings.definition.optional ? .debug : .warning
        guard logger.isEnabled(level) else { return }
        var detail = (error as? UpstreamError).map { $0.logDetail ?? $0.description } ?? "\(error)"
        // A URL that names the user is logged as its template: logs never name a user.
        var logged = url
        if settings.definition.url.usesUser {
            logged = settings.definition.url.source
            detail = detail.replacingOccurrences(of: url, with: logged)
        }
        logger.log(
            level, message,
            ["feature": .string(feature), "operation": .int(operation),
             "url": .string(Self.loggableURL(logged)), "page": .int(page), "error": .string(detail),
             "trace_id": .string(TraceContext.traceID(of: traceParent) ?? ""),
             "session": .string(SessionIdentifier.logTag(sessionID))])
    }

    /// The URL as logs may show it: without its query and fragment (config secrets and
    /// `{header.*}` values travel there) and without user information.
    package static func loggableURL(_ url: String) -> String {
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

    /// Deterministic while the upstream response for this URL is fresh. Never for an operation
    /// that forwards caller headers: its content is the caller's, so its chain is not shared.
    package func memoizationKey(context: ContentContext) -> String? {
        guard let fetched = memoizedFetch(context),
            let fingerprint = settings.services.freshness.fingerprint(for: fetched)
        else { return nil }
        return key(fetched, fingerprint: fingerprint)
    }

    /// The key and its lifetime from one URL and one reading of the response's freshness.
    package func memoizationKeyAndLifetime(context: ContentContext) -> (key: String?, lifetime: MemoizationKeyLifetime) {
        guard let fetched = memoizedFetch(context), let reading = settings.services.freshness.reading(fetched) else {
            return (nil, .unknown)
        }
        return (key(fetched, fingerprint: reading.fingerprint), .whileValid(reading.isValid))
    }

    /// While the upstream response the key names is still the fresh one.
    package func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime {
        guard let fetched = memoizedFetch(context), let isValid = settings.services.freshness.validity(for: fetched) else {
            return .unknown
        }
        return .whileValid(isValid)
    }

    /// What identifies the fetch a memo key names (``fetchKey(_:locale:)``); nil when the
    /// operation has no key: not a `GET`, forwarding caller headers, or a URL that cannot be made.
    private func memoizedFetch(_ context: ContentContext) -> String? {
        guard settings.definition.method == "GET", settings.definition.forwardHeaders.isEmpty,
            let url = try? url(for: context, page: 0)
        else { return nil }
        return fetchKey(url, locale: sentLocale(context))
    }

    /// `remote:<schema>:<fetch>#<fingerprint>`, made in one buffer (an open that prepares its
    /// chain makes it every time).
    private func key(_ fetched: String, fingerprint: UInt64) -> String {
        let schema = settings.schema.identifier
        var key = "remote:"
        key.reserveCapacity(7 + schema.utf8.count + 1 + fetched.utf8.count + 1 + 20)
        key.append(schema)
        key.append(":")
        key.append(fetched)
        key.append("#")
        key.append(String(fingerprint))
        return key
    }

    private func apply(_ loaded: Loaded, to builder: inout ViewModelBuilder, context: ContentContext) throws {
        // Catalog strings first: the schema reads the JSON in the request's locale.
        let value = settings.strings?.localized(loaded.value, locale: context.request.locale) ?? loaded.value
        try builder.add(json: value, schema: settings.schema)
        if let age = loaded.staleAgeSeconds {
            StaleContent.report(ageSeconds: age)
            settings.services.staleServed?.labels(context.feature.identifier).increment()
        }
    }

    /// The body as view JSON: a view object or a list of body components.
    package func parse(_ body: [UInt8]) throws -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONParser(options: .init(maxDepth: settings.jsonDepth, duplicateKeys: .keepLast)).parse(body)
        } catch {
            throw UpstreamError.invalidJSON(detail: error.description)
        }
        guard value.objectValue != nil || value.arrayValue != nil else {
            throw UpstreamError.invalidJSON(detail: "the body is neither a view object nor a list of components")
        }
        return value
    }

    /// A child span of the request's trace for one fetch (W3C trace context).
    package static func traceHeaders(_ context: ContentContext) -> [(name: String, value: String)] {
        TraceContext.upstreamHeaders(
            traceParent: context.request.header(TraceContext.parentHeader),
            traceState: context.request.header(TraceContext.stateHeader))
    }

    /// One fetch with bounded retries (idempotent GETs only) and exponential backoff.
    package func fetch(_ url: String, _ inputs: Inputs) async throws -> UpstreamResponse {
        let definition = settings.definition
        var request = UpstreamRequest(url: url)
        request.method = definition.method
        request.headers = requestHeaders(inputs)
        request.timeout = definition.timeoutMs.map { .milliseconds($0) } ?? settings.defaultTimeout
        request.traceHeaders = inputs.trace
        request.defaultMaxAge = definition.defaultMaxAgeSeconds
        // A caller's credentials never share a cache entry or an in-flight fetch with another caller.
        if !definition.forwardHeaders.isEmpty { request.cachePolicy = .bypass }
        var attempt = 0
        while true {
            do {
                let response = try await settings.services.client.sendExpectingSuccess(request)
                settings.services.tags.record(url: url, tags: response.contentTags)
                // The freshness of a URL is everyone's: not for a response made for one caller
                // (its forwarded headers, or the user `forwardIdentity` names, which the HTTP
                // cache keys on as it keys on every request header).
                if definition.forwardHeaders.isEmpty, definition.forwardIdentity == nil {
                    settings.services.freshness.record(
                        url: fetchKey(url, locale: inputs.locale), body: response.body, freshUntil: response.freshUntil)
                }
                return response
            } catch let error as UpstreamError where attempt < definition.retries && definition.method == "GET"
                && Self.isRetryable(error)
            {
                attempt += 1
                try await Task.sleep(for: .milliseconds(50 << (attempt - 1)))
            }
        }
    }

    package static func isRetryable(_ error: UpstreamError) -> Bool {
        switch error.kind {
        case .timeout, .connectFailed, .connectionReset: return true
        case .httpStatus(let status): return status >= 500
        default: return false
        }
    }
}
