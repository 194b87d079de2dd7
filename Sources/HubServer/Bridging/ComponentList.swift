import HubModel
import HubPrimitives

/// One `Hub-Components` header read: the component identifiers it lists (at most
/// ``maximumComponents``) and their part of the render cache's variant (`|` and the sorted
/// identifiers). A client sends the same header on every request, so the lists of recent
/// headers are kept by their text (``ParsedHeaders``, in ``SharedServices``): reading one (split,
/// parse, a set, sort and join) cost about 2 us per request.
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
}
