import HubModel

/// Lets a content operation perform an action in its session (S129): the action runs through
/// the same pipeline (handler veto, observers) with trigger `contentOperation` and no component.
public struct ActionPerformer: Sendable {
    let perform: @Sendable (ComponentIdentifier, JSONObject?) async -> Bool

    public init(_ perform: @escaping @Sendable (ComponentIdentifier, JSONObject?) async -> Bool) {
        self.perform = perform
    }

    /// Performs `identifier`; returns whether it was performed.
    @discardableResult
    public func performAction(_ identifier: ComponentIdentifier, customData: JSONObject? = nil) async -> Bool {
        await perform(identifier, customData)
    }

    /// A performer that performs nothing.
    public static let none = ActionPerformer { _, _ in false }
}
