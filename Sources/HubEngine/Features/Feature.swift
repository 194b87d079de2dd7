/// A feature: which view URIs it serves and how their content loads (S131).
public struct Feature: Sendable {
    public let info: FeatureInfo
    public let predicate: ViewURIPredicate
    /// Factories whose operations form the chain, in order (S84).
    public let operationFactories: [any ContentOperationFactory]
    public let reloadPolicy: ReloadPolicy
    /// The custom JSON schema operations should parse with; `nil` for the default.
    public let schemaIdentifier: String?
    /// Asked before every action in this feature's views; `nil` uses the registry's default (S144).
    public let actionHandler: (any ActionHandler)?
    /// Which definition of the feature this is, stamped by the engine that serves it: a config
    /// reload that changes the feature gives it a new revision (memoized chains and sessions of
    /// the old one are then re-run); 0 until an engine serves it.
    public internal(set) var revision: UInt64 = 0

    public init(
        identifier: String, title: String, localizedTitles: [String: String] = [:], predicate: ViewURIPredicate,
        operationFactories: [any ContentOperationFactory], reloadPolicy: ReloadPolicy = .always,
        schemaIdentifier: String? = nil, actionHandler: (any ActionHandler)? = nil
    ) {
        self.info = FeatureInfo(identifier: identifier, title: title, localizedTitles: localizedTitles)
        self.predicate = predicate
        self.operationFactories = operationFactories
        self.reloadPolicy = reloadPolicy
        self.schemaIdentifier = schemaIdentifier
        self.actionHandler = actionHandler
    }

    /// A feature whose chain is a fixed list of operations, shared by every session. Use a
    /// factory instead when operations keep per-session state.
    public init(
        identifier: String, title: String, predicate: ViewURIPredicate, operations: [any ContentOperation],
        reloadPolicy: ReloadPolicy = .always, schemaIdentifier: String? = nil, actionHandler: (any ActionHandler)? = nil
    ) {
        self.init(
            identifier: identifier, title: title, predicate: predicate,
            operationFactories: [ClosureContentOperationFactory { _ in operations }], reloadPolicy: reloadPolicy,
            schemaIdentifier: schemaIdentifier, actionHandler: actionHandler)
    }

    public var identifier: String { info.identifier }
    public var title: String { info.title }

    /// The chain for a new session: every factory's operations in order (S84).
    public func makeOperations(for request: ViewRequest) throws(EngineError) -> [any ContentOperation] {
        let operations = operationFactories.flatMap { $0.makeOperations(for: request) }
        guard !operations.isEmpty else {
            throw EngineError(.noOperations, "feature '\(identifier)' created no content operations")
        }
        return operations
    }
}
