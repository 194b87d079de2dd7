import HubHTTP
import HubModel
import HubPrimitives

/// What a client renders, read once per request: the components it lists
/// (`Hub-Components: ns:name, ns:name`: the set the engine's operations see,
/// ``ViewRequest/clientComponents``) and the components the kill switches switch off for its
/// `Hub-Client` version. Component fallback replaces the components it lacks or that are
/// switched off; the render cache files that rendering under ``variant``.
struct ClientComponents: Sendable {
    /// The `Hub-Components` set (``ComponentList``), or `nil` when
    /// the request has no such header (every component is rendered, unless switched off).
    let identifiers: Set<ComponentIdentifier>?
    /// Components `components.killSwitches` switched off for this client's version.
    let killed: Set<ComponentIdentifier>
    /// The render cache's variant for this client: `|` and the sorted identifiers, then `!` and
    /// the sorted switched-off ones.
    let variant: String

    /// Why a component is replaced by its fallback.
    enum Reason: String, Sendable {
        /// The client's `Hub-Components` does not list it.
        case unsupported
        /// A kill switch matched the client's `Hub-Client` version.
        case killSwitch = "kill_switch"
    }

    /// What a request with the `Hub-Components` list `listed` (nil without the header) says,
    /// with the components `killed` that the kill switches switch off for its client.
    init(listed: ComponentList?, killed: Set<ComponentIdentifier> = []) {
        identifiers = listed?.identifiers
        self.killed = killed
        var variant = listed?.variant ?? ""
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
