@testable import HubEngine
import HubModel

/// Builders of engines and sessions shared by the suites.
enum EngineFixture {
    static let uri = "hub:test"
    static let featureIdentifier = "id"
    static let featureTitle = "title"

    /// A generous deadline: only tests whose behaviour IS a timeout use a short one.
    static let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), memoEntries: 0)

    static func feature(
        _ operations: [any ContentOperation], identifier: String = featureIdentifier, title: String = featureTitle,
        predicate: ViewURIPredicate = .root(uri), reloadPolicy: ReloadPolicy = .always,
        actionHandler: (any ActionHandler)? = nil
    ) -> Feature {
        Feature(
            identifier: identifier, title: title, predicate: predicate, operations: operations,
            reloadPolicy: reloadPolicy, actionHandler: actionHandler)
    }

    static func engine(
        _ operations: [any ContentOperation], reloadPolicy: ReloadPolicy = .always,
        actions: [(namespace: String, factory: any ActionFactory)] = [], defaultHandler: (any ActionHandler)? = nil,
        featureHandler: (any ActionHandler)? = nil, configuration: ViewEngine.Configuration = configuration
    ) throws -> ViewEngine {
        try engine(
            features: [feature(operations, reloadPolicy: reloadPolicy, actionHandler: featureHandler)],
            actions: actions, defaultHandler: defaultHandler, configuration: configuration)
    }

    static func engine(
        features: [Feature], actions: [(namespace: String, factory: any ActionFactory)] = [],
        defaultHandler: (any ActionHandler)? = nil, configuration: ViewEngine.Configuration = configuration
    ) throws -> ViewEngine {
        ViewEngine(
            features: try FeatureRegistry(features: features, defaultActionHandler: defaultHandler),
            actions: try ActionRegistry(factories: actions), configuration: configuration)
    }

    /// An engine for `operations` with one session opened on ``uri``.
    static func session(
        _ operations: [any ContentOperation], reloadPolicy: ReloadPolicy = .always,
        connectivity: Connectivity = .online,
        actions: [(namespace: String, factory: any ActionFactory)] = [], defaultHandler: (any ActionHandler)? = nil,
        featureHandler: (any ActionHandler)? = nil, configuration: ViewEngine.Configuration = configuration
    ) async throws -> (engine: ViewEngine, session: ViewSession, state: ViewState) {
        let engine = try engine(
            operations, reloadPolicy: reloadPolicy, actions: actions, defaultHandler: defaultHandler,
            featureHandler: featureHandler, configuration: configuration)
        let (session, state) = try await engine.openSession(for: ViewRequest(viewURI: uri, connectivity: connectivity))
        return (engine, session, state)
    }

    static func request(_ connectivity: Connectivity = .online, uri: String = uri) -> ViewRequest {
        ViewRequest(viewURI: uri, connectivity: connectivity)
    }
}

extension ViewSession {
    /// Callers waiting for the queue to drain (white-box test hook).
    var pendingCallers: Int { waiters.count }
    /// Runs queued and not started (white-box test hook).
    var queuedWork: [Work] { queue }
}

/// Waits (without sleeping for ordering) until `count` callers wait on the session's queue.
func waitForPendingCallers(_ session: ViewSession, _ count: Int) async {
    var spins = 0
    while await session.pendingCallers < count {
        spins += 1
        if spins % 1000 == 0 { try? await Task.sleep(for: .milliseconds(1)) } else { await Task.yield() }
    }
}

extension ViewState {
    var bodyIdentifiers: [String] { viewModel?.body.map(\.identifier) ?? [] }
    var title: String? { viewModel?.title }
}

/// Collects the next `count` states of an update stream.
func collect(_ count: Int, from iterator: inout AsyncStream<ViewState>.Iterator) async -> [ViewState] {
    var states: [ViewState] = []
    while states.count < count, let state = await iterator.next() { states.append(state) }
    return states
}
