/// A feature: which view URIs it serves and how their content loads (S131).
///
/// A value type whose definition lives in one shared, immutable box: every live session holds
/// its feature, so a copy costs a reference, not the definition (memory per session).
public struct Feature: Sendable {
    /// The definition, shared by every copy.
    private final class Storage: Sendable {
        let info: FeatureInfo
        let predicate: ViewURIPredicate
        let operationFactories: [any ContentOperationFactory]
        let reloadPolicy: ReloadPolicy
        let schemaIdentifier: String?
        let actionHandler: (any ActionHandler)?
        let access: AccessRule?
        let readsUser: Bool

        init(
            info: FeatureInfo, predicate: ViewURIPredicate, operationFactories: [any ContentOperationFactory],
            reloadPolicy: ReloadPolicy, schemaIdentifier: String?, actionHandler: (any ActionHandler)?,
            access: AccessRule?, readsUser: Bool
        ) {
            self.info = info
            self.predicate = predicate
            self.operationFactories = operationFactories
            self.reloadPolicy = reloadPolicy
            self.schemaIdentifier = schemaIdentifier
            self.actionHandler = actionHandler
            self.access = access
            self.readsUser = readsUser
        }
    }

    private let storage: Storage

    public var info: FeatureInfo { storage.info }
    public var predicate: ViewURIPredicate { storage.predicate }
    /// Factories whose operations form the chain, in order (S84).
    public var operationFactories: [any ContentOperationFactory] { storage.operationFactories }
    public var reloadPolicy: ReloadPolicy { storage.reloadPolicy }
    /// The custom JSON schema operations should parse with; `nil` for the default.
    public var schemaIdentifier: String? { storage.schemaIdentifier }
    /// Asked before every action in this feature's views; `nil` uses the registry's default (S144).
    public var actionHandler: (any ActionHandler)? { storage.actionHandler }
    /// Who may open its views (`"access"`); `nil`: anyone.
    public var access: AccessRule? { storage.access }
    /// Whether its chain reads the user (`{user...}` placeholders, `forwardIdentity`): it then
    /// needs one even without an access rule.
    public var readsUser: Bool { storage.readsUser }

    /// Whether `user` (`nil`: anonymous) may use the feature's views.
    public func access(for user: HubUser?) -> AccessDecision {
        if let access { return access.check(user) }
        return readsUser && user == nil ? .authenticationRequired : .allowed
    }

    /// Throws ``EngineError`` `authenticationRequired` or `insufficientClaims` when `user` may not use the feature.
    public func checkAccess(_ user: HubUser?) throws(EngineError) {
        if let error = access(for: user).error(feature: identifier) { throw error }
    }
    /// Which definition of the feature this is, stamped by the engine that serves it: a config
    /// reload that changes the feature gives it a new revision (memoized chains and sessions of
    /// the old one are then re-run); 0 until an engine serves it.
    public internal(set) var revision: UInt64 = 0

    public init(
        identifier: String, title: String, localizedTitles: [String: String] = [:], predicate: ViewURIPredicate,
        operationFactories: [any ContentOperationFactory], reloadPolicy: ReloadPolicy = .always,
        schemaIdentifier: String? = nil, actionHandler: (any ActionHandler)? = nil, access: AccessRule? = nil,
        readsUser: Bool = false
    ) {
        self.storage = Storage(
            info: FeatureInfo(identifier: identifier, title: title, localizedTitles: localizedTitles),
            predicate: predicate, operationFactories: operationFactories, reloadPolicy: reloadPolicy,
            schemaIdentifier: schemaIdentifier, actionHandler: actionHandler, access: access, readsUser: readsUser)
    }

    /// A feature whose chain is a fixed list of operations, shared by every session. Use a
    /// factory instead when operations keep per-session state.
    public init(
        identifier: String, title: String, predicate: ViewURIPredicate, operations: [any ContentOperation],
        reloadPolicy: ReloadPolicy = .always, schemaIdentifier: String? = nil, actionHandler: (any ActionHandler)? = nil,
        access: AccessRule? = nil
    ) {
        self.init(
            identifier: identifier, title: title, predicate: predicate,
            operationFactories: [ClosureContentOperationFactory { _ in operations }], reloadPolicy: reloadPolicy,
            schemaIdentifier: schemaIdentifier, actionHandler: actionHandler, access: access)
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
