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

    /// `Content-Type: application/json`, `cacheControl`, then these headers in a fixed order,
    /// written as bytes (``HTTPHeaders/init(writingCapacity:)``): each value is copied once and
    /// the response keeps no reference to it. Borrowing: a consuming `self` made the compiler copy
    /// the whole struct (five references) several times per view response.
    func headers(cacheControl: String) -> HTTPHeaders {
        var fields = HTTPHeaders(writingCapacity: writingCapacity(cacheControl: cacheControl))
        fields.add(name: "Content-Type", value: "application/json")
        fields.add(name: "Cache-Control", value: cacheControl)
        if let token { fields.add(name: HubHeaderName.session, value: token) }
        fields.add(name: HubHeaderName.version, value: String(version))
        if let serverTiming { fields.add(name: "Server-Timing", value: serverTiming) }
        if let stale { fields.add(name: HubHeaderName.stale, value: stale) }
        if let rebuilt { fields.add(name: RebuiltHeader.name, value: RebuiltHeader.value(rebuilt)) }
        if let etag { fields.add(name: "ETag", value: etag) }
        LocaleHeaders.append(locale, to: &fields)
        return fields
    }

    /// Room for the fields above and what the representation middleware adds (`ETag`, `Vary`,
    /// `Content-Encoding`), so that the bytes are written without growing: the names and fixed
    /// values (about 140 bytes), eight bytes per field, and the values' own lengths.
    private func writingCapacity(cacheControl: String) -> Int {
        var bytes = 512 + cacheControl.utf8.count
        bytes += token?.utf8.count ?? 0
        bytes += serverTiming?.utf8.count ?? 0
        bytes += stale?.utf8.count ?? 0
        bytes += etag?.utf8.count ?? 0
        bytes += locale?.utf8.count ?? 0
        return bytes
    }
}
