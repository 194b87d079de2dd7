import HubHTTP
import HubModel
import HubSync

/// The components a client renders (`Hub-Components: ns:name, ns:name`), read once per request:
/// the set the engine's operations see (``ViewRequest/clientComponents``) and component
/// fallback applies, and the key the render cache files that rendering under.
struct ClientComponents: Sendable {
    /// At most ``maximumComponents`` identifiers are read from the header.
    let identifiers: Set<ComponentIdentifier>
    /// The render cache's variant for this set: `|` and the sorted identifiers.
    let variant: String

    /// Component identifiers read from one `Hub-Components` header.
    static let maximumComponents = 512

    /// The set `request` names, or `nil` when it has no `Hub-Components` (render as is).
    init?(_ request: HTTPRequest) {
        guard let header = request.headers["Hub-Components"] else { return nil }
        self.init(header: header)
    }

    init(header: String) {
        identifiers = Set(
            header.split(separator: ",").prefix(Self.maximumComponents).compactMap {
                ComponentIdentifier(string: String($0.trimmingOWS()))
            })
        variant = "|" + identifiers.map(\.identifierString).sorted().joined(separator: ",")
    }
}
