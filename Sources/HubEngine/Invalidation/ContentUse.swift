/// The upstream content a chain run built from (``ContentSources``): the URLs and the tags of
/// every operation's latest run. Immutable and shared: a memo entry and every session answered
/// from it hold one instance.
public final class ContentUse: Sendable {
    public let urls: Set<String>
    public let tags: Set<String>

    public init(urls: Set<String>, tags: Set<String>) {
        self.urls = urls
        self.tags = tags
    }

    /// `use` with `urls` and `tags` added; `use` itself when they add nothing.
    static func merging(_ use: ContentUse?, urls: [String], tags: [String]) -> ContentUse? {
        guard let use else { return urls.isEmpty && tags.isEmpty ? nil : ContentUse(urls: Set(urls), tags: Set(tags)) }
        guard !urls.allSatisfy(use.urls.contains) || !tags.allSatisfy(use.tags.contains) else { return use }
        return ContentUse(urls: use.urls.union(urls), tags: use.tags.union(tags))
    }
}
