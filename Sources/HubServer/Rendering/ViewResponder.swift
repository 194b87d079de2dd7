import HubEngine
import HubHTTP
import HubModel
import HubSync

/// Turns a session's ``ViewState`` into an HTTP response: JSON (cached per view model) as a
/// ``Representation`` (``RepresentationMiddleware`` sends its ETag and decides 304 and gzip),
/// `Hub-Session`, `Hub-Version`, `Server-Timing`, or a problem for a failed view.
struct ViewResponder {
    let state: ServerState

    /// The rendered form of `original` for this client: component fallback applied when it
    /// said what it renders (`Hub-Components`, read once per request), cached per view model and
    /// component set. `shared`: the view model is the chain memo's (many sessions answer with it).
    func rendered(_ original: ViewModel, for components: ClientComponents?, shared: Bool) -> RenderedView {
        guard let components else {
            return state.renderCache.rendered(original, variant: "", shared: shared) { original }
        }
        return state.renderCache.rendered(original, variant: components.variant, shared: shared) {
            state.fallback.apply(to: original, renderable: components.identifiers)
        }
    }

    /// The view model a client should get: component fallback applied when it said what it renders.
    func clientViewModel(_ viewModel: ViewModel, for components: ClientComponents?) -> ViewModel {
        guard let components else { return viewModel }
        return state.fallback.apply(to: viewModel, renderable: components.identifiers)
    }

    /// The view model of `viewState`, or the problem for its failure. The problem names the
    /// session only when it has a view model: one whose loads all failed is not kept by the
    /// engine (a failed first load), so its id names nothing and the client retries with `uri`.
    func viewModel(of viewState: ViewState, sessionID: String?) throws -> ViewModel {
        var headers: HTTPHeaders = [:]
        if let sessionID, viewState.viewModel != nil { headers.add(name: "Hub-Session", value: sessionID) }
        if let failure = viewState.failure {
            let error = ProblemMapping.viewLoadError(failure)
            throw HTTPError(error.status, code: error.code, detail: error.detail, headers: headers)
        }
        guard let viewModel = viewState.viewModel else {
            throw HTTPError(.internalServerError, code: "no_view_model", detail: "the view has no content", headers: headers)
        }
        return viewModel
    }

    /// The full response for a view.
    func response(for viewState: ViewState, sessionID: String?, components: ClientComponents?) throws -> HTTPResponse {
        let original = try viewModel(of: viewState, sessionID: sessionID)
        let rendered = rendered(original, for: components, shared: viewState.isMemoized)
        // Room for what follows here and in RepresentationMiddleware (Vary, ETag, Content-Encoding).
        var headers = HTTPHeaders([], reservingCapacity: 8)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Cache-Control", value: "private, no-cache")
        if let sessionID { headers.add(name: "Hub-Session", value: sessionID) }
        headers.add(name: "Hub-Version", value: String(viewState.version))
        if !viewState.timings.isEmpty {
            // The same timings repeat on every request for a shared view model (memoized) and on
            // every reload-free load of a held session: each list is formatted once per view.
            headers.add(name: "Server-Timing", value: rendered.serverTiming(viewState.timings, make: Self.serverTiming))
        }
        if let stale = Self.staleHeader(viewState.timings) { headers.add(name: "Hub-Stale", value: stale) }
        // RepresentationMiddleware adds the ETag and decides 304, gzip and Vary.
        return HTTPResponse(status: .ok, headers: headers, body: .representation(rendered.representation))
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
