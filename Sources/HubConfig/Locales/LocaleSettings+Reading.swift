import HubModel
import HubOperations

extension LocaleSettings {
    /// Reads `"locales"`; `nil` with an error recorded when it is not usable.
    package init?(_ value: JSONValue?, reader: ConfigReader) {
        let path = "$.locales"
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(object, at: path, known: ["supported", "default"])
        guard let tags = reader.stringList(object, "supported", at: path), !tags.isEmpty else {
            reader.error("\(path).supported", "is required: a list of language tags such as [\"en\", \"de\"]")
            return nil
        }
        guard tags.count <= Self.maximumSupported else {
            reader.error("\(path).supported", "at most \(Self.maximumSupported) locales")
            return nil
        }
        var valid = true
        var seen: Set<String> = []
        for (index, tag) in tags.enumerated() {
            if !Self.isLanguageTag(tag) {
                reader.error("\(path).supported[\(index)]", "'\(tag)' is not a language tag (BCP 47: en, de, fr-CA, zh-Hant)")
                valid = false
            } else if !seen.insert(tag.lowercased()).inserted {
                reader.error("\(path).supported[\(index)]", "'\(tag)' is listed twice (tags compare case-insensitively)")
                valid = false
            }
        }
        var defaultTag = tags[0]
        if let written = reader.string(object, "default", at: path) {
            guard let match = tags.first(where: { $0.lowercased() == written.lowercased() }) else {
                reader.error("\(path).default", "'\(written)' is not one of the supported locales")
                return nil
            }
            defaultTag = match
        }
        guard valid else { return nil }
        self.init(supported: tags, defaultLocale: defaultTag)
    }
}
