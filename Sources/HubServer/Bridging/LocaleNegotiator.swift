import HubOperations
import HubHTTP
import HubPrimitives

/// Negotiates each request's locale once (docs/LOCALIZATION.md "Negotiation"):
///
/// 1. `Hub-Locale`, when it names a supported locale (compared case-insensitively);
/// 2. else RFC 4647 *lookup* over `Accept-Language`: ranges in order of preference (q-values
///    honoured, ties in field order, `q=0` excluded, `*` ignored), each truncated one subtag at a
///    time (`de-AT` falls back to `de`; a trailing singleton goes with the subtag after it) until a
///    supported tag matches; a truncation the header excludes (`de;q=0`) does not match;
/// 3. else the default locale.
///
/// The answer is always one of ``LocaleSettings/supported``, spelled as configured: the chain
/// memo, the render cache and the upstream cache key on it, never on the raw header, so their
/// entries stay a bounded set however many `Accept-Language` values clients send. What recent
/// `Accept-Language` values look up to is kept per thread (``ParsedHeaders``, bounded).
final class LocaleNegotiator: Sendable {
    let settings: LocaleSettings
    /// Supported tags by their lowercased form.
    private let byLowercased: [String: String]
    /// Recent `Accept-Language` values and the locale they look up to (`nil`: none matched).
    private let lookups: ParsedHeaders<String?>

    init(_ settings: LocaleSettings) {
        self.settings = settings
        var byLowercased: [String: String] = [:]
        for tag in settings.supported { byLowercased[tag.lowercased()] = tag }
        self.byLowercased = byLowercased
        let table = byLowercased
        lookups = ParsedHeaders { header in LocaleNegotiator.lookup(header, supported: table) }
    }

    /// The negotiated locale of a request with `headers`.
    func locale(of headers: HTTPHeaders) -> String {
        if let asked = RequestBridge.lastValue(of: HubHeaderName.locale, in: headers),
            let tag = supportedTag(asked.trimmingOWS())
        {
            return tag
        }
        if let found = lookups.parsed(field: "Accept-Language", of: headers), let found { return found }
        return settings.defaultLocale
    }

    /// The supported tag `text` names (case-insensitively), or nil.
    func supportedTag(_ text: some StringProtocol) -> String? {
        guard text.utf8.count <= 35 else { return nil }
        return byLowercased[text.lowercased()]
    }

    /// RFC 4647 section 3.4 lookup of `header` (an `Accept-Language` value) among `supported`
    /// (lowercased tag to configured tag); nil when no range matches.
    static func lookup(_ header: String, supported: [String: String]) -> String? {
        let list = WeightedList(header)
        var excluded: Set<String> = []
        for element in list.elements where element.quality == 0 { excluded.insert(element.value.lowercased()) }
        for element in list.preferred where element.value != "*" && element.value.utf8.count <= 64 {
            for candidate in LocaleSettings.truncations(of: element.value.lowercased()) where !excluded.contains(candidate) {
                if let tag = supported[candidate] { return tag }
            }
        }
        return nil
    }
}
