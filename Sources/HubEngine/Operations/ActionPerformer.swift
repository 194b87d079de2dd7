import HubModel

/// Lets a content operation perform an action in its session (S129): the action runs through
/// the same pipeline (handler veto, observers) with trigger `contentOperation` and no component.
public struct ActionPerformer: Sendable {
    /// Where the actions go.
    private enum Destination: Sendable {
        /// A closure given to ``init(_:)``.
        case closure(@Sendable (ComponentIdentifier, JSONObject?) async -> Bool)
        /// The session of a chain run (``ActionTarget``): one reference, no closure made for
        /// each context of the run.
        case run(ActionTarget)
    }

    private let destination: Destination

    public init(_ perform: @escaping @Sendable (ComponentIdentifier, JSONObject?) async -> Bool) {
        destination = .closure(perform)
    }

    /// The performer a chain run's contexts carry.
    init(_ target: ActionTarget) {
        destination = .run(target)
    }

    /// Performs `identifier`; returns whether it was performed.
    @discardableResult
    public func performAction(_ identifier: ComponentIdentifier, customData: JSONObject? = nil) async -> Bool {
        switch destination {
        case .closure(let perform): await perform(identifier, customData)
        case .run(let target): await target.perform(identifier, customData: customData)
        }
    }

    /// A performer that performs nothing.
    public static let none = ActionPerformer { _, _ in false }
}
