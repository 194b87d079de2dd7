import HubEngine
import HubModel

/// Operations and actions written in Swift by the app that embeds HubServer, registered by
/// the names `Config/` refers to (`{"kind": "swift", "name": ...}`).
public struct SwiftExtensions: Sendable {
    /// Makes a fresh operation for each new session.
    public typealias OperationMaker = @Sendable (SwiftOperationContext) -> any ContentOperation

    public private(set) var operations: [String: OperationMaker] = [:]
    public private(set) var actionFactories: [String: any ActionFactory] = [:]
    /// Request headers (besides `Hub-*` and those the config names) that Swift operations and
    /// actions read through `ViewRequest.header(_:)`; no other header reaches the engine.
    public private(set) var retainedRequestHeaders: Set<String> = []

    public init() {}

    /// Registers a content operation under `name`; a later registration replaces an earlier one.
    public mutating func registerOperation(_ name: String, _ make: @escaping OperationMaker) {
        operations[name] = make
    }

    /// Registers an action factory under `name` (`actions.json`: `{"kind": "swift", "name": ...}`).
    public mutating func registerActionFactory(_ name: String, _ factory: any ActionFactory) {
        actionFactories[name] = factory
    }

    /// Declares request headers your Swift operations or actions read (`context.request.header`).
    /// The engine keeps only `Hub-*` headers, the headers the config names and these, each value
    /// at most 4 KiB: a session holds its latest request, so unread headers are not kept.
    public mutating func retainRequestHeaders(_ names: String...) {
        for name in names { retainedRequestHeaders.insert(name.lowercased()) }
    }
}
