import HubModel
import HubOperations

extension ConfigLoader {
    /// Reads `strings/<locale>.json` (``StringCatalogs``) and appends to `issues` what a
    /// catalog or a reference misses, as warnings (``StringCatalogChecks``): `serve` still starts
    /// and logs them; `validate` lists them. A catalog that is not a flat object of strings is an
    /// error.
    package func readStrings(
        _ directory: String, locales: LocaleSettings?, features: [FeatureDefinition], depth: Int, issues: inout [ConfigIssue]
    ) -> StringCatalogs {
        var tables: [String: [String: String]] = [:]
        for file in listJSON(directory, StringCatalogs.directory) {
            let path = "\(StringCatalogs.directory)/\(file)"
            let reader = ConfigReader(file: path)
            defer { issues += reader.issues }
            guard let json = readJSON(directory, path, reader: reader, depth: depth),
                let object = reader.object(json, at: "$")
            else { continue }
            var table: [String: String] = [:]
            for (key, value) in reader.removingSchemaReference(object) {
                guard let text = value.stringValue else {
                    reader.error(ConfigReader.join("$", key), "must be a string (a catalog maps keys to strings)")
                    continue
                }
                table[key] = text
            }
            let name = String(file.dropLast(5))
            guard let locales else {
                reader.warning("$", "string catalogs are used only with server.json \"locales\": ignored")
                continue
            }
            guard let locale = locales.supported.first(where: { $0.lowercased() == name.lowercased() }) else {
                reader.warning(
                    "$", "a catalog for '\(name)', which is not a supported locale (locales.supported: "
                        + "\(locales.supported.joined(separator: ", "))): ignored")
                continue
            }
            tables[locale] = table
        }
        let catalogs = StringCatalogs(tables: tables)
        issues += StringCatalogChecks(catalogs: catalogs, locales: locales).warnings(features: features)
        return catalogs
    }
}
