import HubEngine
import HubPrimitives

/// `"sendLocale": true`: the request's negotiated locale goes upstream as `Accept-Language`
/// (docs/LOCALIZATION.md "Remote content"). The client's own `Accept-Language` never does
/// (unless `forwardHeaders` names it, which bypasses every cache): the upstream sees one of
/// the supported tags, so the HTTP cache, the freshness the chain memo reads and the last good
/// content keep one entry per locale, shared by every user of it.
extension RemoteOperation {
    /// The locale this operation sends for `context`; nil without `sendLocale` (or without a
    /// negotiated locale).
    package func sentLocale(_ context: ContentContext) -> String? {
        settings.definition.sendLocale ? context.request.locale : nil
    }

    /// What identifies a fetch's response for freshness and last good content: the URL, the
    /// locale sent with it, and the lifetime given to a response that states none (an
    /// operation without `defaultMaxAgeSeconds` never takes freshness another's gave).
    package static func fetchKey(_ url: String, locale: String?, defaultMaxAge: Int? = nil) -> String {
        var key = url
        if let locale { key += "\nlocale:" + locale }
        if let defaultMaxAge { key += "\ndefault-max-age:" + String(defaultMaxAge) }
        return key
    }

    /// The URL a fetch identity (``fetchKey(_:locale:defaultMaxAge:)``, and the stale store's
    /// key made from it) names: what an invalidation matches, whatever lines follow it.
    package static func url(ofFetchKey key: String) -> String {
        String(key.prefix { $0 != "\n" })
    }

    /// ``fetchKey(_:locale:defaultMaxAge:)`` with this operation's `defaultMaxAgeSeconds`.
    package func fetchKey(_ url: String, locale: String?) -> String {
        Self.fetchKey(url, locale: locale, defaultMaxAge: settings.definition.defaultMaxAgeSeconds)
    }

    /// The headers a fetch sends (its identity in the HTTP cache): the configured ones (the
    /// locale's `Accept-Language` among them), the caller's forwarded values, `Accept`.
    package func requestHeaders(_ inputs: Inputs) -> [(name: String, value: String)] {
        ForwardedHeaders.merge(
            configured: Self.headers(settings.definition.headers, locale: inputs.locale), forwarded: inputs.forwarded)
            + [(name: "Accept", value: "application/json")]
    }

    /// The configured request headers, with `Accept-Language: <locale>` in place of a
    /// configured one when a locale is sent.
    package static func headers(
        _ configured: [(name: String, value: String)], locale: String?
    ) -> [(name: String, value: String)] {
        guard let locale else { return configured }
        return configured.filter { !$0.name.asciiCaseInsensitiveEquals("accept-language") }
            + [(name: "Accept-Language", value: locale)]
    }
}
