import HubMetrics
import HubModel

/// Turns `{"$t": ...}` references into the strings of a locale (docs/LOCALIZATION.md), before a
/// schema reads the JSON: static content once per supported locale when the config is built,
/// remote content each time it is applied.
///
/// A key is looked up along the locale's fallback chain (``LocaleSettings/fallbackChain(for:)``:
/// `fr-CA`, `fr`, then the default). A string that only the default locale has, or that no
/// catalog has (the key itself is shown), is *missing* for the requested locale: counted in
/// `hub_strings_missing_total{locale}` each time content is built with it.
package final class StringResolver: Sendable {
    package let catalogs: StringCatalogs
    package let settings: LocaleSettings
    /// Fallback chains of the supported locales.
    private let chains: [String: [String]]
    /// `hub_strings_missing_total{locale}`; nil outside a server.
    private let missing: MetricFamily<Counter>?

    package init(catalogs: StringCatalogs, settings: LocaleSettings, missing: MetricFamily<Counter>?) {
        self.catalogs = catalogs
        self.settings = settings
        self.missing = missing
        var chains: [String: [String]] = [:]
        for locale in settings.supported { chains[locale] = settings.fallbackChain(for: locale) }
        self.chains = chains
    }

    /// The locale content is made in for a request's negotiated `locale` (nil: the default).
    package func locale(_ locale: String?) -> String { locale ?? settings.defaultLocale }

    /// The string `key` has in `locale` (its fallback chain), formatted with `args`, and
    /// whether it was missing there (taken from the default locale, or not found: the key).
    package func string(_ key: String, args: JSONObject?, locale: String) -> (text: String, missing: Bool) {
        let chain = chains[locale] ?? settings.fallbackChain(for: locale)
        for (index, tag) in chain.enumerated() {
            guard let template = catalogs.tables[tag]?[key] else { continue }
            let fellBack = index == chain.count - 1 && tag != locale
            return (StringCatalogs.format(template, args: args), fellBack)
        }
        return (key, true)
    }

    /// `value` with every reference replaced by its string in `locale`; `nil` when it holds
    /// none (the caller keeps its value: nothing is copied). `missingCount` grows by each
    /// string that was missing.
    package func resolved(_ value: JSONValue, locale: String, missingCount: inout Int) -> JSONValue? {
        if let reference = StringReference(value) {
            let (text, wasMissing) = string(reference.key, args: reference.args, locale: locale)
            if wasMissing { missingCount += 1 }
            return .string(text)
        }
        switch value {
        case .array(let elements):
            var changed: [JSONValue]?
            for (index, element) in elements.enumerated() {
                guard let replaced = resolved(element, locale: locale, missingCount: &missingCount) else { continue }
                if changed == nil { changed = elements }
                changed![index] = replaced
            }
            return changed.map(JSONValue.array)
        case .object(let object):
            var changed: JSONObject?
            for (key, field) in object {
                guard let replaced = resolved(field, locale: locale, missingCount: &missingCount) else { continue }
                if changed == nil { changed = object }
                changed![key] = replaced
            }
            return changed.map(JSONValue.object)
        default:
            return nil
        }
    }

    /// `value` in the request's `locale`, missing strings counted now (remote content).
    package func localized(_ value: JSONValue, locale requested: String?) -> JSONValue {
        let locale = locale(requested)
        var missingCount = 0
        guard let resolved = resolved(value, locale: locale, missingCount: &missingCount) else { return value }
        countMissing(missingCount, locale: locale)
        return resolved
    }

    /// Counts `count` missing strings of `locale`.
    package func countMissing(_ count: Int, locale: String) {
        guard count > 0, let missing else { return }
        missing.labels(locale).increment(by: UInt64(count))
    }
}
