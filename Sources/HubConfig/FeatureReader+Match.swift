import HubEngine
import HubModel

/// A feature's `match` (``ViewURIPredicate``).
extension FeatureReader {
    /// The feature's `match`: exactly one of `root`, `uri` or `pattern`, and its `exclude`.
    func readMatch(_ value: JSONValue?) -> ViewURIPredicate? {
        guard let value else {
            reader.error("$.match", "is required: one of root, uri or pattern")
            return nil
        }
        guard let match = reader.object(value, at: "$.match") else { return nil }
        reader.checkKeys(match, at: "$.match", known: ["root", "uri", "pattern", "exclude"])
        let exclusions = reader.stringList(match, "exclude", at: "$.match") ?? []
        warnAboutIgnoredQueries(exclusions, in: match, key: "exclude")
        let excluded = Set(exclusions.map(ViewURI.stripQueryAndFragment))
        let given = ["root", "uri", "pattern"].filter { match[$0] != nil }
        guard given.count == 1 else {
            reader.error("$.match", given.isEmpty ? "needs one of root, uri or pattern" : "has \(given.joined(separator: " and ")); give exactly one")
            return nil
        }
        switch given[0] {
        case "root":
            guard let root = reader.string(match, "root", at: "$.match") else { return nil }
            return .root(root, excluding: excluded)
        case "uri":
            guard let uris = reader.stringList(match, "uri", at: "$.match"), !uris.isEmpty else {
                reader.error("$.match.uri", "must be a URI or a non-empty list of URIs")
                return nil
            }
            warnAboutIgnoredQueries(uris, in: match, key: "uri")
            return .uris(Set(uris.map(ViewURI.stripQueryAndFragment)), excluding: excluded)
        default:
            guard let pattern = reader.string(match, "pattern", at: "$.match") else { return nil }
            do {
                return try .pattern(pattern, excluding: excluded)
            } catch {
                reader.error("$.match.pattern", "invalid regular expression: \(error)")
                return nil
            }
        }
    }

    /// Warns about each `uri` or `exclude` entry with a query or fragment: both compare view URIs
    /// without them, so `hub:a?legacy=1` stands for `hub:a` with any query (an exclusion of it
    /// would turn away `hub:a` itself). A `pattern` sees the query, and is what to use instead.
    private func warnAboutIgnoredQueries(_ entries: [String], in match: JSONObject, key: String) {
        let single = match[key]?.stringValue != nil
        for (index, entry) in entries.enumerated() {
            let bare = ViewURI.stripQueryAndFragment(entry)
            guard bare != entry else { continue }
            let effect = key == "exclude"
                ? "excludes '\(bare)' with any query or fragment, '\(bare)' itself included"
                : "matches '\(bare)' with any query or fragment"
            reader.warning(single ? "$.match.\(key)" : "$.match.\(key)[\(index)]",
                           "'\(entry)': view URIs are compared here without their query and fragment, so this "
                           + "\(effect); a pattern sees the query")
        }
    }
}
