import HubHTTP
import HubModel
import HubPrimitives

/// What a client renders, read once per request: the components it lists
/// (`Hub-Components: ns:name, ns:name`: the set the engine's operations see,
/// ``ViewRequest/clientComponents``) and the components the kill switches switch off for its
/// `Hub-Client` version. Component fallback replaces the components it lacks or that are
/// switched off; the render cache files that rendering under ``variant``.
struct ClientComponents: Sendable {
    /// The `Hub-Components` set (at most ``maximumComponents`` identifiers read), or `nil` when
    /// the request has no such header (every component is rendered, unless switched off).
    let identifiers: Set<ComponentIdentifier>?
    /// Components `components.killSwitches` switched off for this client's version.
    let killed: Set<ComponentIdentifier>
    /// The render cache's variant for this client: `|` and the sorted identifiers, then `!` and
    /// the sorted switched-off ones.
    let variant: String

    /// Component identifiers read from one `Hub-Components` header.
    static let maximumComponents = 512

    /// Why a component is replaced by its fallback.
    enum Reason: String, Sendable {
        /// The client's `Hub-Components` does not list it.
        case unsupported
        /// A kill switch matched the client's `Hub-Client` version.
        case killSwitch = "kill_switch"
    }

    /// What `request` says, or `nil` when it has no `Hub-Components` and no kill switch applies
    /// to it (render as is).
    init?(_ request: HTTPRequest, killSwitches: KillSwitches = KillSwitches()) {
        let killed = killSwitches.killed(forClient: request.headers["Hub-Client"])
        let header = request.headers["Hub-Components"]
        guard header != nil || !killed.isEmpty else { return nil }
        self.init(header: header, killed: killed)
    }

    init(header: String?, killed: Set<ComponentIdentifier> = []) {
        identifiers = header.map { header in
            Set(
                header.split(separator: ",").prefix(Self.maximumComponents).compactMap {
                    ComponentIdentifier(string: String($0.trimmingOWS()))
                })
        }
        self.killed = killed
        var variant = identifiers.map { "|" + $0.map(\.identifierString).sorted().joined(separator: ",") } ?? ""
        if !killed.isEmpty { variant += "!" + killed.map(\.identifierString).sorted().joined(separator: ",") }
        self.variant = variant
    }

    /// Why `component` gets its fallback for this client, or `nil` when the client renders it.
    func replacementReason(for component: ComponentIdentifier) -> Reason? {
        if killed.contains(component) { return .killSwitch }
        if let identifiers, !identifiers.contains(component) { return .unsupported }
        return nil
    }
}
