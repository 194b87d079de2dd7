/// How ``FeatureRegistry/feature(for:)`` finds the first feature whose predicate matches a view
/// URI (S133) without asking every predicate in turn: a `GET /view?uri=` that no recent answer
/// covers (a client the event loop has not just served) looks its feature up, and a config with
/// dozens of features asked each of them, regular expressions included.
///
/// Exact-URI predicates (``ViewURIPredicate/uris(_:excluding:)``) go into one dictionary, from
/// each URI they name (compared without query and fragment, as they are) to the first such
/// feature that names it and does not exclude it. The other predicates (`root`, `pattern`,
/// `custom`) are asked in precedence order, but only those ahead of the exact feature the
/// dictionary found: a feature after it could never win. The answer is the one the scan in order
/// gives, for every URI.
///
/// The answers are remembered per thread (``RecentURIs``), up to ``RecentURIs/capacity`` view
/// URIs each, unless a custom predicate (a Swift closure, which may answer differently another
/// time) is asked: a view URI asked again costs one dictionary lookup.
struct FeatureLookup: Sendable {
    /// The first exact-URI feature (by index in the registry) naming each URI.
    private let exact: [String: Int]
    /// The indices of the features whose predicates are not exact-URI lists, in order.
    private let others: [Int]
    /// Answers already given, per thread; nil when a custom predicate may be asked.
    private let recent: RecentURIs?

    init(_ features: [Feature]) {
        var exact: [String: Int] = [:]
        var others: [Int] = []
        for (index, feature) in features.enumerated() {
            guard let uris = feature.predicate.exactURIs else {
                others.append(index)
                continue
            }
            for uri in uris where exact[uri] == nil { exact[uri] = index }
        }
        self.exact = exact
        self.others = others
        self.recent = features.contains { $0.predicate.isCustom } ? nil : RecentURIs()
    }

    /// The index in `features` (the array this was made from) of the first feature that matches
    /// `viewURI`, or nil.
    func index(for viewURI: String, in features: [Feature]) -> Int? {
        guard let recent else { return search(viewURI, in: features) }
        if let known = recent.answer(for: viewURI) { return known }
        let found = search(viewURI, in: features)
        recent.remember(found, for: viewURI)
        return found
    }

    private func search(_ viewURI: String, in features: [Feature]) -> Int? {
        let withoutQuery = ViewURI.stripQueryAndFragment(viewURI)
        let exactIndex = exact[withoutQuery]
        for index in others {
            if let exactIndex, index > exactIndex { break }
            if features[index].predicate.matches(viewURI, withoutQuery: withoutQuery) { return index }
        }
        return exactIndex
    }
}
