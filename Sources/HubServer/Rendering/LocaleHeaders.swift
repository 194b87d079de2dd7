import HubHTTP

/// What a view response says about its language when `server.json` names `locales`:
/// `Content-Language: <the view's locale>` and `Vary: Accept-Language, Hub-Locale` (the headers
/// its locale was negotiated from; ``RepresentationMiddleware`` adds `Accept-Encoding` to the
/// same field, CORS adds `Origin`). Without a locale nothing is added: the response is as it was
/// before locales existed. A `304` keeps the `Vary` and drops `Content-Language` (RFC 9110
/// section 15.4.5: no representation metadata).
enum LocaleHeaders {
    /// The request headers a view's locale is negotiated from.
    static let vary = "Accept-Language, " + HubHeaderName.locale

    /// Adds the fields for a view in `locale` (nothing for nil) to fields that have neither.
    static func append(_ locale: String?, to fields: inout HTTPHeaders) {
        guard let locale else { return }
        fields.add(name: "Content-Language", value: locale)
        fields.add(name: "Vary", value: vary)
    }

    /// Adds the fields for a view in `locale` (nothing for nil), joining a `Vary` already there.
    static func add(_ locale: String?, to headers: inout HTTPHeaders) {
        guard let locale else { return }
        headers.replaceOrAdd(name: "Content-Language", value: locale)
        if let existing = headers["Vary"], !existing.isEmpty {
            headers.replaceOrAdd(name: "Vary", value: existing + ", " + vary)
        } else {
            headers.add(name: "Vary", value: vary)
        }
    }
}
