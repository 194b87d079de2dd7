import HubEngine
import HubHTTP

/// The headers that say which view a response carries, in one place for the three answers that
/// carry one: a view (`GET /view`), an action's envelope (`POST /action`) and explain mode.
/// `Hub-Session` (the session's token text), `Hub-Version`, `Hub-Stale` (operations that built
/// from last good content), and, where the answer has them, `Server-Timing`, `Hub-Rebuilt` and
/// `ETag` (a view's ETag is added by ``RepresentationMiddleware`` instead, which also decides 304),
/// and `Content-Language` with `Vary` for a view in a negotiated locale.
struct ViewResponseHeaders {
    /// `Hub-Session`: the token that names the session; nil for a view no session holds.
    var token: String?
    /// `Hub-Version`.
    var version: Int
    /// `Hub-Stale` (``ViewRenderer/staleHeader(_:)``), from the view's operation timings.
    var stale: String?
    /// `Server-Timing`, when the answer reports its operations' timings.
    var serverTiming: String?
    /// `Hub-Rebuilt`, when the request rebuilt its session and the rebuild read its state.
    var rebuilt: RebuiltState?
    /// `ETag` of a body that is not a representation (an envelope).
    var etag: String?
    /// The view's negotiated locale: `Content-Language` and `Vary` (``LocaleHeaders``); nil
    /// without `locales`.
    var locale: String?

    /// The headers of `viewState` named by `token`.
    init(viewState: ViewState, token: String?) {
        self.token = token
        version = viewState.version
        stale = ViewRenderer.staleHeader(viewState.timings)
    }

    /// `Content-Type: application/json`, `cacheControl`, then these headers in a fixed order.
    /// Borrowing: each value is copied into the list once. Not consuming: taking the values out
    /// of a consuming `self` made the compiler copy the whole struct (five references) several
    /// times per view response.
    func headers(cacheControl: String) -> HTTPHeaders {
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(8)
        fields.append((name: "Content-Type", value: "application/json"))
        fields.append((name: "Cache-Control", value: cacheControl))
        if let token { fields.append((name: HubHeaderName.session, value: token)) }
        fields.append((name: HubHeaderName.version, value: String(version)))
        if let serverTiming { fields.append((name: "Server-Timing", value: serverTiming)) }
        if let stale { fields.append((name: HubHeaderName.stale, value: stale)) }
        if let rebuilt { fields.append((name: RebuiltHeader.name, value: RebuiltHeader.value(rebuilt))) }
        if let etag { fields.append((name: "ETag", value: etag)) }
        LocaleHeaders.add(locale, to: &fields)
        return HTTPHeaders(fields)
    }
}
