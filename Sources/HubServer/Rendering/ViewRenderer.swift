import HubEngine
import HubHTTP
import HubMetrics
import HubModel
import HubPrimitives

/// Turns a session's ``ViewState`` into an HTTP response: JSON (cached per view model) as a
/// ``Representation`` (``RepresentationMiddleware`` sends its ETag and decides 304 and gzip),
/// `Hub-Session`, `Hub-Version`, `Server-Timing`, or a problem for a failed view.
struct ViewRenderer {
    let shared: SharedServices

    /// The rendered form of `original` for this client: component fallback applied when it
    /// said what it renders (`Hub-Components`, read once per request) or a kill switch matches
    /// its `Hub-Client`, cached per view model and client variant. `memoized`: the view model is
    /// the chain memo's (many sessions answer with it). `viewURI` names the view's feature in
    /// `hub_component_fallbacks_total`, which every call counts (one call per response sent).
    func rendered(_ original: ViewModel, for components: ClientComponents?, memoized: Bool, viewURI: String) -> RenderedView {
        guard let components else {
            return shared.renderCache.rendered(original, variant: "", shared: memoized) {
                RenderedView(bytes: original.jsonBytes(capacityHint: Self.capacityHint), tags: shared.viewTags)
            }
        }
        let rendered = shared.renderCache.rendered(original, variant: components.variant, shared: memoized) {
            let (client, fallbacks) = fallback(original, for: components, viewURI: viewURI)
            return RenderedView(bytes: client.jsonBytes(capacityHint: Self.capacityHint), tags: shared.viewTags, fallbacks: fallbacks)
        }
        rendered.countFallbacks()
        return rendered
    }

    /// The first buffer size of a view's JSON.
    static let capacityHint = 32 * 1024

    /// The view model a client should get (component fallback applied when it said what it
    /// renders or a kill switch matches it), counted in `hub_component_fallbacks_total`.
    func clientViewModel(_ viewModel: ViewModel, for components: ClientComponents?, viewURI: String) -> ViewModel {
        guard let components else { return viewModel }
        let (client, fallbacks) = fallback(viewModel, for: components, viewURI: viewURI)
        for (counter, count) in fallbacks { counter.increment(by: count) }
        return client
    }

    /// `original` with component fallback applied for `components`, and the
    /// `hub_component_fallbacks_total` children to add for each response that sends it: the
    /// `component` label is the view's own component name, never one the client sent.
    private func fallback(
        _ original: ViewModel, for components: ClientComponents, viewURI: String
    ) -> (ViewModel, [(counter: Counter, count: UInt64)]) {
        var replaced: [ComponentIdentifier: (reason: ClientComponents.Reason, count: UInt64)] = [:]
        let client = shared.fallback.apply(
            to: original, replacing: { components.replacementReason(for: $0) != nil },
            replaced: { identifier in
                guard let reason = components.replacementReason(for: identifier) else { return }
                replaced[identifier, default: (reason, 0)].count += 1
            })
        guard !replaced.isEmpty else { return (client, []) }
        let feature = shared.engine.features.feature(for: viewURI)?.identifier ?? "unknown"
        let counters = replaced.sorted { $0.key.identifierString < $1.key.identifierString }.map { identifier, entry in
            (counter: shared.metrics.componentFallbacks.labels(feature, identifier.identifierString, entry.reason.rawValue),
             count: entry.count)
        }
        return (client, counters)
    }

    /// The view model of `viewState`, or the problem for its failure. The problem names the
    /// session only when it has a view model: one whose loads all failed is not kept by the
    /// engine (a failed first load), so its id names nothing and the client retries with `uri`.
    func viewModel(of viewState: ViewState, token: String?) throws -> ViewModel {
        // The session is named on an error only when the view was made (the usual case needs none).
        var headers: HTTPHeaders { token.map { viewState.viewModel != nil ? [HubHeaderName.session: $0] : [:] } ?? [:] }
        if let failure = viewState.failure {
            let error = ProblemMapping.viewLoadError(failure)
            // The mapping's own headers (`Retry-After` of a 503 state_unavailable) are kept.
            var all = error.headers
            for field in headers { all.replaceOrAdd(name: field.name, value: field.value) }
            throw HTTPError(error.status, code: error.code, detail: error.detail, headers: all)
        }
        guard let viewModel = viewState.viewModel else {
            throw HTTPError(.internalServerError, code: "no_view_model", detail: "the view has no content", headers: headers)
        }
        return viewModel
    }

    /// The full response for a view; `locale`: the view's (``LocaleHeaders``), nil without locales.
    func response(
        for viewState: ViewState, token: String?, components: ClientComponents?, viewURI: String, locale: String? = nil
    ) throws -> HTTPResponse {
        let original = try viewModel(of: viewState, token: token)
        let rendered = rendered(original, for: components, memoized: viewState.isMemoized, viewURI: viewURI)
        var headers = ViewResponseHeaders(viewState: viewState, token: token)
        if !viewState.timings.isEmpty {
            // The same timings repeat on every request for a shared view model (memoized) and on
            // every reload-free load of a held session: each list is formatted once per view.
            headers.serverTiming = rendered.serverTiming(viewState.timings, make: Self.serverTiming)
        }
        headers.locale = locale
        // RepresentationMiddleware adds the ETag and decides 304, gzip and Vary.
        return HTTPResponse(
            status: .ok, headers: headers.headers(cacheControl: "private, no-cache"), body: .representation(rendered.representation))
    }

    /// `Hub-Stale: remote;age=12`: a structured-field list (RFC 8941) with one entry per
    /// operation that built from last good content, its name (a token, or a string when it is
    /// not one) and the content's age in seconds; nil when none did.
    static func staleHeader(_ timings: [OperationTiming]) -> String? {
        var header = ""
        for timing in timings {
            guard let age = timing.staleAgeSeconds else { continue }
            if !header.isEmpty { header += ", " }
            header += StructuredField.item(timing.name) + ";age=\(age)"
        }
        return header.isEmpty ? nil : header
    }

    /// `op0;desc="static";dur=0.012, op1;desc="remote";dur=101.4`: one entry per operation, in ms.
    static func serverTiming(_ timings: [OperationTiming]) -> String {
        var header = ""
        header.reserveCapacity(timings.count * 40)
        for (index, timing) in timings.enumerated() {
            if index > 0 { header += ", " }
            header += "op\(index);desc=\""
            header += timing.name.contains(where: { $0 == "\"" || $0 == "\\" }) ? timing.name.filter { $0 != "\"" && $0 != "\\" } : timing.name
            if timing.memoized { header += " (memo)" }
            if timing.failed { header += " (failed)" }
            header += "\";dur="
            if timing.duration == .zero {
                header += "0"  // memoized: no Double formatting on the hot path
            } else {
                header += String((timing.duration.inMilliseconds * 1000).rounded() / 1000)
            }
        }
        return header
    }
}
