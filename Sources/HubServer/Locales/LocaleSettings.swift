import HubModel

/// `server.json` `"locales"`: the languages the server speaks and the one it falls back to
/// (docs/LOCALIZATION.md).
///
/// ```json
/// "locales": { "supported": ["en", "de", "fr-CA"], "default": "en" }
/// ```
/// Each request's locale is negotiated once (``LocaleNegotiator``) and is one of ``supported``,
/// spelled as written here. Without `locales` (the default) no locale is negotiated: views carry
/// no `Content-Language`, and `{locale}`, `sendLocale` and string catalogs are not available.
public struct LocaleSettings: Sendable, Equatable {
    /// The supported language tags, as written (BCP 47: `en`, `de`, `fr-CA`, `zh-Hant`).
    public let supported: [String]
    /// The tag answered when nothing else matches; one of ``supported``.
    public let defaultLocale: String

    /// Most tags `supported` may list: the bound on every cache keyed by locale.
    public static let maximumSupported = 100

    /// Settings from values already checked (`defaultLocale` must be one of `supported`).
    public init(supported: [String], defaultLocale: String) {
        self.supported = supported
        self.defaultLocale = defaultLocale
    }

    /// Reads `"locales"`; `nil` with an error recorded when it is not usable.
    init?(_ value: JSONValue?, reader: ConfigReader) {
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

    /// A BCP 47 language tag as `supported` accepts it: a primary language subtag of 2 to 3
    /// (or 5 to 8) letters, then subtags of 1 to 8 letters or digits separated by `-`, at most
    /// 35 bytes in all (what a session token carries).
    static func isLanguageTag(_ tag: String) -> Bool {
        guard (2...35).contains(tag.utf8.count) else { return false }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = subtags.first, [2, 3, 5, 6, 7, 8].contains(primary.count),
            primary.utf8.allSatisfy(Self.isLetter)
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.utf8.allSatisfy { Self.isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The locales `locale`'s strings fall back along, most specific first: its own tag, each
    /// shorter tag RFC 4647 lookup would try (`fr-CA`, then `fr`) that is supported, then the
    /// default (`en`). A tag that is not supported starts from the first supported truncation.
    public func fallbackChain(for locale: String) -> [String] {
        var chain: [String] = []
        for candidate in LocaleNegotiator.truncations(of: locale.lowercased()) {
            if let tag = supported.first(where: { $0.lowercased() == candidate }), !chain.contains(tag) { chain.append(tag) }
        }
        if !chain.contains(defaultLocale) { chain.append(defaultLocale) }
        return chain
    }
}
