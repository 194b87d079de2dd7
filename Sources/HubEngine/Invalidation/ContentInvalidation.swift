/// What `POST /invalidate` names: exact upstream URLs, URL prefixes, content tags
/// (`Surrogate-Key`, `Cache-Tag`) and feature identifiers. Content matches when its URL is one
/// of ``urls`` or starts with one of ``urlPrefixes``, or one of its tags is in ``tags``; a
/// session or memo entry matches when content it used matches or its feature is in
/// ``features``.
public struct ContentInvalidation: Sendable, Equatable {
    public var urls: Set<String>
    public var urlPrefixes: [String]
    public var tags: Set<String>
    public var features: Set<String>

    public init(urls: Set<String> = [], urlPrefixes: [String] = [], tags: Set<String> = [], features: Set<String> = []) {
        self.urls = urls
        self.urlPrefixes = urlPrefixes
        self.tags = tags
        self.features = features
    }

    /// True when it names nothing.
    public var isEmpty: Bool { urls.isEmpty && urlPrefixes.isEmpty && tags.isEmpty && features.isEmpty }

    /// Whether content fetched from `url` with the content tags `tags` matches.
    public func matches(url: String, tags contentTags: some Sequence<String>) -> Bool {
        if urls.contains(url) { return true }
        for prefix in urlPrefixes where url.hasPrefix(prefix) { return true }
        guard !tags.isEmpty else { return false }
        for tag in contentTags where tags.contains(tag) { return true }
        return false
    }

    /// Whether a chain run that used `use` matches (its URLs, its tags), features aside.
    public func matches(_ use: ContentUse) -> Bool {
        if !tags.isEmpty, !tags.isDisjoint(with: use.tags) { return true }
        if !urls.isEmpty, !urls.isDisjoint(with: use.urls) { return true }
        guard !urlPrefixes.isEmpty else { return false }
        return use.urls.contains { url in urlPrefixes.contains { url.hasPrefix($0) } }
    }
}

/// What ``ViewEngine/invalidate(_:)`` did.
public struct ContentInvalidationReport: Sendable, Equatable {
    /// Chain memo entries dropped.
    public var memoEntries = 0
    /// Live sessions marked stale (``sessionsRerun`` of them re-run at once).
    public var sessions = 0
    /// Sessions followed over SSE that re-run now, through the reload's bounded pool.
    public var sessionsRerun = 0

    public init() {}
}
