import HubModel
import HubPrimitives
import HubSync

/// One `Hub-Components` header read: the component identifiers it lists (at most
/// ``maximumComponents``) and their part of the render cache's variant (`|` and the sorted
/// identifiers). A client sends the same header on every request, so the lists of recent
/// headers are kept by their text (``Cache``): reading one (split, parse, a set, sort and join)
/// cost about 2 us per request.
struct ComponentList: Sendable {
    /// The identifiers listed (unparseable items are skipped).
    let identifiers: Set<ComponentIdentifier>
    /// `|` and the sorted identifiers, comma-separated.
    let variant: String

    /// Component identifiers read from one `Hub-Components` header.
    static let maximumComponents = 512

    init(header: String) {
        identifiers = Set(
            header.split(separator: ",").prefix(Self.maximumComponents).compactMap {
                ComponentIdentifier(string: String($0.trimmingOWS()))
            })
        variant = "|" + identifiers.map(\.identifierString).sorted().joined(separator: ",")
    }

    /// The lists of recent headers, by their text, per thread (``RecentHits``): at most
    /// ``capacity`` per stripe, and only headers of at most ``maximumHeaderBytes`` (a longer one
    /// is read each time), so what is kept stays under a few MiB whatever clients send.
    final class Cache: Sendable {
        static let capacity = 16
        static let maximumHeaderBytes = 1024
        private let recent = RecentHits<String, ComponentList>(capacity: Cache.capacity)

        init() {}

        /// The list `header` names: a recent one, or read now (and remembered when short enough).
        func list(for header: String) -> ComponentList {
            guard header.utf8.count <= Self.maximumHeaderBytes else { return ComponentList(header: header) }
            if let list = recent.value(for: header) { return list }
            let list = ComponentList(header: header)
            recent.remember(list, for: header)
            return list
        }
    }
}
