import HubModel
import HubOperations

/// What `hub-server validate` (and `serve`, in its log) warns about in the string catalogs,
/// naming the key, the locale and the file: keys a supported locale lacks (it falls back to
/// the default locale's string), a supported locale without a catalog while others have one, and
/// `{"$t"}` references in static content to keys no catalog has. Warnings only: a missing
/// string falls back at run time (``StringResolver``).
package struct StringCatalogChecks {
    package let catalogs: StringCatalogs
    package let locales: LocaleSettings?

    package func warnings(features: [FeatureDefinition]) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        if let locales, !catalogs.isEmpty { issues += missingKeys(locales) }
        issues += references(features)
        return issues
    }

    /// Each key some catalog has and a supported locale's fallback chain (before the default)
    /// lacks; one warning for a supported locale with no catalog at all.
    private func missingKeys(_ locales: LocaleSettings) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let keys = catalogs.allKeys
        for locale in locales.supported {
            let file = StringCatalogs.file(for: locale)
            guard catalogs.tables[locale] != nil else {
                issues.append(ConfigIssue(
                    file: file, path: "$",
                    message: "no catalog for the supported locale '\(locale)': its strings fall back to '\(locales.defaultLocale)'",
                    severity: .warning))
                continue
            }
            var chain = locales.fallbackChain(for: locale)
            if locale != locales.defaultLocale { chain.removeAll { $0 == locales.defaultLocale } }
            for key in keys where !chain.contains(where: { catalogs.tables[$0]?[key] != nil }) {
                let fallback = locale == locales.defaultLocale || catalogs.tables[locales.defaultLocale]?[key] == nil
                    ? "the key itself is shown" : "falls back to '\(locales.defaultLocale)'"
                issues.append(ConfigIssue(
                    file: file, path: ConfigReader.join("$", key),
                    message: "key '\(key)' is missing from locale '\(locale)' (\(file)): \(fallback)", severity: .warning))
            }
        }
        return issues
    }

    /// References to keys no catalog has (or any reference, without `locales`).
    private func references(_ features: [FeatureDefinition]) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        for feature in features {
            forEachDocument(feature.operations, path: "$.operations") { document, path in
                StringReference.forEach(in: document) { reference in
                    if locales == nil {
                        issues.append(ConfigIssue(
                            file: feature.file, path: path,
                            message: "{\"$t\": \"\(reference.key)\"} is resolved only with server.json \"locales\": left as it is",
                            severity: .warning))
                    } else if !catalogs.tables.values.contains(where: { $0[reference.key] != nil }) {
                        issues.append(ConfigIssue(
                            file: feature.file, path: path,
                            message: "{\"$t\": \"\(reference.key)\"} names a key that no catalog (\(StringCatalogs.directory)/*.json) has: the key itself is shown",
                            severity: .warning))
                    }
                }
            }
        }
        return issues
    }

    /// The content documents of `operations` (`static`, `recover`, a patch's `set`, variants'
    /// too) with their paths.
    private func forEachDocument(
        _ operations: [OperationDefinition], path: String, _ body: (JSONValue, String) -> Void
    ) {
        for (index, operation) in operations.enumerated() {
            let here = "\(path)[\(index)]"
            switch operation.kind {
            case .staticContent(let document), .recover(let document): body(document, here)
            case .patch(let patch): body(.object(patch.set), here + ".set")
            case .variant(_, let variants):
                for (value, nested) in variants.sorted(by: { $0.key < $1.key }) {
                    forEachDocument(nested, path: ConfigReader.join("\(here).variants", value), body)
                }
            default: break
            }
        }
    }
}
