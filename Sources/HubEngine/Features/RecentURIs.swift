import HubSync

/// The feature lookups a thread answered lately, by view URI (``FeatureLookup``): at most
/// ``capacity`` per stripe of threads, all forgotten when full (a client naming ever new URIs
/// costs a search each, as without this, and never more memory).
final class RecentURIs: Sendable {
    /// View URIs each stripe remembers (at most 256 bytes each).
    static let capacity = 256
    static let longestURI = 256
    private let stripes = Striped<[String: Int32]> { [:] }

    /// The index remembered for `viewURI` (`-1`: no feature), or nil.
    func answer(for viewURI: String) -> Int?? {
        guard viewURI.utf8.count <= Self.longestURI else { return nil }
        guard let known = stripes.current.withLock({ $0[viewURI] }) else { return nil }
        return known < 0 ? .some(nil) : .some(Int(known))
    }

    func remember(_ index: Int?, for viewURI: String) {
        guard viewURI.utf8.count <= Self.longestURI else { return }
        stripes.current.withLock { answers in
            if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            answers[viewURI] = index.map { Int32($0) } ?? -1
        }
    }
}
