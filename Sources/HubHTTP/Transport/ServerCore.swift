import HubSync

/// What every connection of one server shares: configuration, the responder, and the registry
/// of open connections (for the cap, ``HTTPServer/openConnections`` and shutdown).
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder

    private struct Registry {
        var connections: [ObjectIdentifier: Connection] = [:]
        var draining = false
    }

    private let registry = Locked(Registry())

    /// The responder when it can answer immediately (every layer is ``ImmediateHTTPResponder``).
    let immediate: (any ImmediateHTTPResponder)?

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
        self.immediate = responder as? any ImmediateHTTPResponder
    }

    var openConnections: Int { registry.withLock { $0.connections.count } }

    /// Registers a new connection unless at the cap or draining; returns whether it was added.
    func register(_ connection: Connection) -> Bool {
        registry.withLock { state in
            guard !state.draining, state.connections.count < configuration.limits.connections else { return false }
            state.connections[ObjectIdentifier(connection)] = connection
            return true
        }
    }

    func unregister(_ connection: Connection) {
        _ = registry.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Marks the server draining and returns the connections open at that moment.
    func beginDraining() -> [Connection] {
        registry.withLock { state in
            state.draining = true
            return Array(state.connections.values)
        }
    }

    var allConnections: [Connection] { registry.withLock { Array($0.connections.values) } }

    /// Runs the responder; any error that escapes it becomes a problem response here, so a
    /// responder without ``ErrorMiddleware`` still never leaks internals.
    nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        await responder.answer(request, context: context)
    }

    /// The response when the responder can make it without suspending; `nil` otherwise.
    func respondImmediately(to request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        immediate?.answerImmediately(request, context: context)
    }
}
