/// Decides whether a feature serves a view URI (S133..S139 with DESIGN.md's decisions).
///
/// - `root`: segment-aware prefix: the root followed by the end, `:`, `/`, `?` or `#`
///   (`hub:home` matches `hub:home:x`, not `hub:homework`; a divergence from S137's raw prefix).
/// - `uris`: exact URIs; the view URI's query and fragment are ignored (S136).
/// - `pattern`: a regular expression that must match the whole URI, query included.
/// - `exclude`: exact URIs (compared like `uris`) that never match (S138).
public struct ViewURIPredicate: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case root(String)
        case uris(Set<String>)
        case pattern(CompiledPattern)
        case custom(@Sendable (String) -> Bool)
    }

    let kind: Kind
    /// URIs that never match, compared without query and fragment.
    public let excluded: Set<String>

    /// Matches `root` and every URI below it (segment-aware).
    public static func root(_ root: String, excluding excluded: Set<String> = []) -> ViewURIPredicate {
        ViewURIPredicate(kind: .root(root), excluded: excluded)
    }

    /// Matches these exact URIs (query and fragment ignored).
    public static func uris(_ uris: Set<String>, excluding excluded: Set<String> = []) -> ViewURIPredicate {
        ViewURIPredicate(kind: .uris(uris), excluded: excluded)
    }

    /// Matches URIs the regular expression matches whole (query included).
    public static func pattern(_ pattern: String, excluding excluded: Set<String> = []) throws -> ViewURIPredicate {
        ViewURIPredicate(kind: .pattern(try CompiledPattern(pattern)), excluded: excluded)
    }

    /// Matches what `matches` says (S139 block predicates, for Swift features).
    public static func custom(
        excluding excluded: Set<String> = [], _ matches: @escaping @Sendable (String) -> Bool
    ) -> ViewURIPredicate {
        ViewURIPredicate(kind: .custom(matches), excluded: excluded)
    }

    /// `true` when this predicate selects `viewURI`.
    public func matches(_ viewURI: String) -> Bool {
        matches(viewURI, withoutQuery: ViewURI.stripQueryAndFragment(viewURI))
    }

    /// `true` when this predicate selects `viewURI`, whose query and fragment the caller has
    /// already stripped (`withoutQuery`): the exclusions and exact URIs compare that, and it is
    /// only asked after the predicate's own test, which is cheaper than hashing it.
    func matches(_ viewURI: String, withoutQuery: @autoclosure () -> String) -> Bool {
        let selected: Bool
        switch kind {
        case .root(let root):
            selected = Self.isBelow(viewURI, root: root)
        case .uris(let uris):
            selected = uris.contains(withoutQuery())
        case .pattern(let pattern):
            selected = pattern.matchesWhole(viewURI)
        case .custom(let matches):
            selected = matches(viewURI)
        }
        return selected && (excluded.isEmpty || !excluded.contains(withoutQuery()))
    }

    /// Whether this is a custom predicate (a closure, which may answer differently another time).
    var isCustom: Bool {
        if case .custom = kind { return true }
        return false
    }

    /// The exact URIs an exact-URI predicate selects (those it names less those it excludes);
    /// nil for the other kinds (``FeatureLookup``).
    var exactURIs: [String]? {
        guard case .uris(let uris) = kind else { return nil }
        return uris.filter { !excluded.contains($0) }.sorted()
    }

    /// Whether `viewURI` is `root` or below it: the root followed by the end, `:`, `/`, `?` or
    /// `#` (a root that already ends at one of them matches whatever follows it).
    private static func isBelow(_ viewURI: String, root: String) -> Bool {
        guard viewURI.hasPrefix(root) else { return false }
        if let last = root.utf8.last, isBoundary(last) { return true }
        guard let next = viewURI.utf8.dropFirst(root.utf8.count).first else { return true }
        return isBoundary(next)
    }

    private static func isBoundary(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ":") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// A view URI this predicate matches, for tools that link to a feature (the browser
    /// preview): the root, or the first exact URI in sorted order; `nil` for a pattern or a
    /// custom predicate (nothing to pick without guessing) and when the candidate is excluded.
    public var exampleURI: String? {
        let candidate: String?
        switch kind {
        case .root(let root): candidate = root
        case .uris(let uris): candidate = uris.sorted().first { !excluded.contains($0) }
        case .pattern, .custom: candidate = nil
        }
        guard let candidate, !candidate.isEmpty, matches(candidate) else { return nil }
        return candidate
    }

    public var description: String {
        var text: String
        switch kind {
        case .root(let root): text = "root \(root)"
        case .uris(let uris): text = "uri " + uris.sorted().joined(separator: ", ")
        case .pattern(let pattern): text = "pattern \(pattern.source)"
        case .custom: text = "custom"
        }
        if !excluded.isEmpty { text += " excluding " + excluded.sorted().joined(separator: ", ") }
        return text
    }
}
