import HubModel

/// `server.json` `"locales"`: the languages the server speaks and the one it falls back to
/// (docs/LOCALIZATION.md).
///
/// ```json
/// "locales": { "supported": ["en", "de", "fr-CA"], "default": "en" }
/// ```
/// Each request's locale is negotiated once (HubServer's `LocaleNegotiator`) and is one of ``supported``,
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

    /// A BCP 47 language tag as `supported` accepts it: a primary language subtag of 2 to 3
    /// (or 5 to 8) letters, then subtags of 1 to 8 letters or digits separated by `-`, at most
    /// 35 bytes in all (what a session token carries).
    package static func isLanguageTag(_ tag: String) -> Bool {
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
        for candidate in Self.truncations(of: locale.lowercased()) {
            if let tag = supported.first(where: { $0.lowercased() == candidate }), !chain.contains(tag) { chain.append(tag) }
        }
        if !chain.contains(defaultLocale) { chain.append(defaultLocale) }
        return chain
    }

    /// `range` and each shorter range lookup tries, longest first (`zh-hant-cn-x-a` gives
    /// `zh-hant-cn-x-a`, `zh-hant-cn`, `zh-hant`, `zh`): one subtag removed at a time, and a
    /// singleton left at the end removed with it.
    package static func truncations(of range: String) -> [String] {
        var result = [range]
        var current = Substring(range)
        while let dash = current.lastIndex(of: "-") {
            current = current[..<dash]
            if let previous = current.lastIndex(of: "-"), current.distance(from: previous, to: current.endIndex) == 2 {
                current = current[..<previous]
            }
            if !current.isEmpty { result.append(String(current)) }
        }
        return result
    }
}
