import HubSync
import Synchronization

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

    /// Requests whose answer was work for later (each ran in a task of its own).
    let answeredLater = Atomic<Int>(0)
    /// Body-file sends the socket did not take at once, whose rest went from the file on later
    /// write edges (``PendingFileSend``) instead of being copied.
    let fileSendsResumed = Atomic<Int>(0)

    func noteFileSendResumed() { fileSendsResumed.add(1, ordering: .relaxed) }

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
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

    /// The responder's answer; any error that escapes it becomes a problem response here, so a
    /// responder without ``ErrorMiddleware`` still never leaks internals.
    func answer(to request: HTTPRequest, context: RequestContext) -> HTTPAnswer {
        let answer = responder.connectionAnswer(to: request, context: context)
        if case .later = answer { answeredLater.add(1, ordering: .relaxed) }
        return answer
    }
}
