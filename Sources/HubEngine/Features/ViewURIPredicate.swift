import HubSync

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
        if !excluded.isEmpty && excluded.contains(ViewURI.stripQueryAndFragment(viewURI)) { return false }
        switch kind {
        case .root(let root):
            guard viewURI.hasPrefix(root) else { return false }
            // A root that already ends at a segment boundary matches whatever follows it.
            if let last = root.utf8.last,
                last == UInt8(ascii: ":") || last == UInt8(ascii: "/") || last == UInt8(ascii: "?")
                    || last == UInt8(ascii: "#")
            {
                return true
            }
            let rest = viewURI.utf8.dropFirst(root.utf8.count)
            guard let next = rest.first else { return true }
            return next == UInt8(ascii: ":") || next == UInt8(ascii: "/") || next == UInt8(ascii: "?")
                || next == UInt8(ascii: "#")
        case .uris(let uris):
            return uris.contains(ViewURI.stripQueryAndFragment(viewURI))
        case .pattern(let pattern):
            return pattern.matchesWhole(viewURI)
        case .custom(let matches):
            return matches(viewURI)
        }
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

/// A compiled regular expression shared between threads. `Regex` is not `Sendable`, so it
/// lives behind a lock; matching is rare (once per new view) and short.
final class CompiledPattern: Sendable {
    let source: String
    private let regex: Locked<Regex<AnyRegexOutput>>

    init(_ source: String) throws {
        self.source = source
        self.regex = Locked(try Regex(source))
    }

    func matchesWhole(_ text: String) -> Bool {
        regex.withLock { regex in (try? regex.wholeMatch(in: text)) != nil }
    }
}
