import HubEngine
import HubModel

/// A `static`, `recover` or `patch` operation whose content holds `{"$t"}` references: one operation per
/// supported locale, its content resolved once when the config is built (each keeps its
/// prebuilt builder, shared by every session of that locale), chosen by the request's
/// negotiated locale. Its memo key names the locale.
package struct LocalizedContentOperation: ContentOperation {
    /// One locale's operation and how many of its strings were missing there.
    package struct Variant: Sendable {
        package let operation: any ContentOperation
        package let missingStrings: Int
    }

    package let name: String
    package let variants: [String: Variant]
    package let strings: StringResolver

    /// `document` resolved for every supported locale, each made into an operation by `make`.
    package init(name: String, document: JSONValue, strings: StringResolver, make: (JSONValue) -> any ContentOperation) {
        self.name = name
        self.strings = strings
        var variants: [String: Variant] = [:]
        for locale in strings.settings.supported {
            var missing = 0
            let resolved = strings.resolved(document, locale: locale, missingCount: &missing) ?? document
            variants[locale] = Variant(operation: make(resolved), missingStrings: missing)
        }
        self.variants = variants
    }

    package var completesSynchronously: Bool { true }

    /// The variant of the request's locale (the default's for a locale no longer supported).
    private func variant(_ context: ContentContext) -> (locale: String, variant: Variant)? {
        let locale = strings.locale(context.request.locale)
        if let variant = variants[locale] { return (locale, variant) }
        let fallback = strings.settings.defaultLocale
        return variants[fallback].map { (fallback, $0) }
    }

    package func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        guard let (locale, variant) = variant(context) else { return }
        strings.countMissing(variant.missingStrings, locale: locale)
        try await variant.operation.perform(builder: &builder, context: context)
    }

    package func memoizationKey(context: ContentContext) -> String? {
        guard let (locale, variant) = variant(context), let key = variant.operation.memoizationKey(context: context)
        else { return nil }
        return key + "@" + locale
    }

    package func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
}
