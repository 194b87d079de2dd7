import HubModel

/// How an action came about (section 0 `HUBActionTrigger`).
public enum ActionTrigger: String, Sendable, Hashable {
    /// A component was selected; its target's actions are tried in order (S146).
    case selection
    /// The client performed a named action, optionally on a component (S151).
    case component
    /// A content operation performed it (S152).
    case contentOperation
    /// An action chained it (S156). HubServer reports `chained`, a deliberate divergence
    /// from S157, where the original trigger was copied.
    case chained
}
