import HubEngine
import HubHTTP
import HubMetrics
import HubModel
import HubPrimitives

/// One event-stream listener's position: what it was sent last, and what it sends for the
/// session's next view (`event: view`, or `event: patch` for a patch listener, each encoded
/// once for every listener that sends it). Synchronous, so the listener's task keeps only this
/// small state between views, not the work of making an event.
struct ListenerCursor {
    let sessionID: String
    let viewURI: String
    let request: HTTPRequest
    let shared: SharedServices
    let renderer: ViewRenderer
    /// The patch tables when the listener asked for patches.
    let patches: JSONPatchHistory?
    /// The event id the client already has (`Last-Event-ID`), until the first view.
    private var skip: String?
    /// What the listener has: a view the client named in `Last-Event-ID`, then each one sent.
    private var base: JSONPatchHistory.View?

    init(sessionID: String, viewURI: String, request: HTTPRequest, shared: SharedServices, renderer: ViewRenderer, patches: JSONPatchHistory?) {
        self.sessionID = sessionID
        self.viewURI = viewURI
        self.request = request
        self.shared = shared
        self.renderer = renderer
        self.patches = patches
        let lastEventID = request.headers["Last-Event-ID"].map { String($0.trimmingOWS()) }
        skip = lastEventID
        let variant = shared.clientComponents(of: request)?.variant ?? ""
        base = lastEventID.flatMap { patches?.recent($0, for: JSONPatchHistory.Key(session: sessionID, variant: variant)) }
    }

    /// The event to send for `viewState`, or nil when there is none (no view model, or the
    /// view the client already has).
    mutating func event(for viewState: ViewState) -> EncodedServerSentEvent? {
        guard let viewModel = viewState.viewModel else { return nil }
        // Read per event: a config reload's kill switches apply to open streams too.
        let components = shared.clientComponents(of: request)
        let variant = components?.variant ?? ""
        let historyKey = JSONPatchHistory.Key(session: sessionID, variant: variant)
        let rendered = rendering(of: viewModel, components: components, variant: variant, memoized: viewState.isMemoized)
        let id = RenderedView.eventID(rendered.etag)
        let current = JSONPatchHistory.View(id: id, model: viewModel, rendered: rendered)
        // A variant past the session's few keeps no history: full views for it.
        let patching = patches?.remember(current, for: historyKey) ?? false
        let previous = base
        // Only the first event can be the one the client already has.
        defer {
            skip = nil
            base = current
        }
        if id == skip { return nil }
        let metrics = shared.metrics
        if patching, let patches, let previous, previous.id != id,
            let patch = patches.patchEvent(from: previous, to: current, for: historyKey)
        {
            metrics.ssePatchEvents.labels("patch").increment()
            return patch
        }
        if patches != nil { metrics.ssePatchEvents.labels("view").increment() }
        return rendered.viewEvent(encoded: metrics.sseViewEventsEncoded)
    }

    /// One rendering (and one encoding) of this view for all of the session's listeners; a
    /// session's only listener renders for itself, keeping no slot.
    private func rendering(of viewModel: ViewModel, components: ClientComponents?, variant: String, memoized: Bool) -> RenderedView {
        let render = { renderer.rendered(viewModel, for: components, memoized: memoized, viewURI: viewURI) }
        guard shared.streamLimiter.openStreams(session: sessionID) > 1 else { return render() }
        let (rendered, fresh) = shared.listenerRenderings.rendered(
            viewModel, for: .init(session: sessionID, variant: variant), render: render)
        if !fresh, components != nil { rendered.countFallbacks() }  // counted per view event sent
        return rendered
    }
}
