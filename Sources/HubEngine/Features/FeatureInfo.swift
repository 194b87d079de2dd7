/// What operations, actions and handlers learn about the feature they serve (S187).
public struct FeatureInfo: Sendable, Hashable {
    /// The feature's unique identifier.
    public let identifier: String
    /// The feature's title, also the view title fallback (S96).
    public let title: String
    /// Titles by language tag (`"sv"`, `"pt-BR"`), chosen with the request's `Accept-Language`.
    public let localizedTitles: [String: String]

    public init(identifier: String, title: String, localizedTitles: [String: String] = [:]) {
        self.identifier = identifier
        self.title = title
        self.localizedTitles = localizedTitles
    }

    /// The title for a language preference list (most preferred first): an exact tag, then
    /// its primary language (`pt` for `pt-BR`), else ``title``.
    public func title(for languages: [String]) -> String {
        guard !localizedTitles.isEmpty else { return title }
        for language in languages {
            if let exact = localizedTitles[language] { return exact }
            if let dash = language.firstIndex(of: "-"), let primary = localizedTitles[String(language[..<dash])] {
                return primary
            }
        }
        return title
    }
}
