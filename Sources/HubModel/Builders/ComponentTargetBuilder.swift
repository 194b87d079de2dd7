/// Builds a ``ComponentTarget`` (S20, S21, S32, S80).
public struct ComponentTargetBuilder: Sendable {
    public var uri: String?
    /// The `target.view` content; `nil` until set (S21).
    public var initialViewModel: ViewModelBuilder?
    /// Ordered set of actions: appending an identifier already present does nothing (S19).
    public private(set) var actionIdentifiers: [ComponentIdentifier] = []
    public var customData: JSONObject?

    public init(uri: String? = nil) {
        self.uri = uri
    }

    /// Appends an action unless it is already present (S19, S32).
    public mutating func addAction(_ identifier: ComponentIdentifier) {
        if !actionIdentifiers.contains(identifier) { actionIdentifiers.append(identifier) }
    }

    /// Appends `namespace:name` unless it is already present (S80).
    public mutating func addAction(namespace: String, name: String) {
        addAction(ComponentIdentifier(namespace: namespace, name: name))
    }

    /// Removes every action.
    public mutating func removeAllActions() {
        actionIdentifiers.removeAll()
    }

    /// Mutates the initial view model, creating it with `defaults` when absent.
    public mutating func withInitialViewModel<R>(
        defaults: ComponentDefaults = .standard, _ update: (inout ViewModelBuilder) throws -> R
    ) rethrows -> R {
        var builder = initialViewModel ?? ViewModelBuilder(defaults: defaults)
        initialViewModel = nil
        defer { initialViewModel = builder }
        return try update(&builder)
    }

    /// The target; an empty builder still builds a target (S20).
    public func build() -> ComponentTarget {
        ComponentTarget(
            uri: uri, initialViewModel: initialViewModel?.build(), actionIdentifiers: actionIdentifiers,
            customData: customData.nonEmpty)
    }
}
