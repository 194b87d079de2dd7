import HubModel

/// Action factories by namespace: built, validated, frozen (S142). The `hub` namespace is
/// built in: `hub:reload` re-runs the whole chain, `hub:next-page` loads the next page.
public struct ActionRegistry: Sendable {
    /// A namespace registered twice, or the reserved `hub` namespace.
    public struct ValidationError: Error, Sendable, CustomStringConvertible, Equatable {
        public let namespace: String
        public let message: String
        public var description: String { "action namespace '\(namespace)': \(message)" }
    }

    private let factories: [String: any ActionFactory]

    /// The reserved namespace of the built-in actions.
    public static let builtInNamespace = "hub"

    public init(factories: [(namespace: String, factory: any ActionFactory)] = []) throws(ValidationError) {
        var table: [String: any ActionFactory] = [Self.builtInNamespace: BuiltInActionFactory()]
        for (namespace, factory) in factories {
            guard namespace != Self.builtInNamespace else {
                throw ValidationError(namespace: namespace, message: "reserved for the built-in actions")
            }
            guard !namespace.isEmpty, !namespace.contains(":") else {
                throw ValidationError(namespace: namespace, message: "a namespace must be non-empty and contain no ':'")
            }
            guard table[namespace] == nil else {
                throw ValidationError(namespace: namespace, message: "registered twice")
            }
            table[namespace] = factory
        }
        self.factories = table
    }

    /// Registered namespaces, sorted.
    public var namespaces: [String] { factories.keys.sorted() }

    /// `true` when a factory serves `namespace`.
    public func hasNamespace(_ namespace: String) -> Bool { factories[namespace] != nil }

    /// A new action for `namespace:name`, or `nil` (S143).
    public func makeAction(_ identifier: ComponentIdentifier) -> (any Action)? {
        factories[identifier.namespace]?.makeAction(name: identifier.name)
    }
}

/// `hub:reload` and `hub:next-page`.
struct BuiltInActionFactory: ActionFactory {
    func makeAction(name: String) -> (any Action)? {
        switch name {
        case "reload": return ClosureAction { _ in ActionResult(performed: true, reloadsView: true) }
        case "next-page": return ClosureAction { _ in ActionResult(performed: true, loadsNextPage: true) }
        default: return nil
        }
    }
}
