import HubSync
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1.1 server: one edge-triggered `epoll` event loop per core (at least two), one
/// listening socket that the loops accept from (by default a loop that is idle takes a new
/// connection: ``HTTPServerConfiguration/Balancing``), and one ``Connection`` per client that
/// lives on the loop that accepted it.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: router)
/// try server.start()
/// print(server.localPort)
/// await server.shutdown()
/// ```
///
/// Requests run as tasks that prefer their connection's loop as executor: a responder that does
/// not suspend elsewhere is answered on the thread that read the request, in the same turn.
/// Work that blocks a thread (file or database I/O without async APIs) belongs on another
/// executor, or it holds up every connection of that loop.
///
/// Connection cap: past `limits.connections` (and while shutting down) a new connection is accepted,
/// answered `503` with a problem body and `Connection: close`, and closed at once, so clients learn
/// why instead of waiting in the backlog.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    private let core: ServerCore

    private struct State {
        var loops: [EventLoop] = []
        var listeners: [Listener] = []
        var port = 0
        var started = false
    }

    private let state = Locked(State())

    /// A server that answers every request with `responder`; call ``start()`` to listen.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.core = ServerCore(configuration: configuration, responder: responder)
    }

    /// The bound port (useful with port 0); 0 before ``start()``.
    public var localPort: Int { state.withLock { $0.port } }

    /// The bound address as `host:port` (IPv6 in brackets).
    public var localAddress: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(host):\(localPort)"
    }

    /// Connections currently open.
    public var openConnections: Int { core.openConnections }

    /// The files large shared bodies are sent from (``SharedBytes``, unnamed temporary files or
    /// sealed memory), process-wide: how many, and their bytes (page cache or kernel memory,
    /// bounded at 64 MiB and 1,024 files).
    public static var sharedBodyFiles: (files: Int, bytes: Int) { BodyFile.budget.held }

    /// Requests answered by work for later (``HTTPAnswer/later(_:)``), each in a task of its own,
    /// since the server started; a request answered now counts nothing here.
    public var requestsAnsweredLater: Int { core.answeredLater.load(ordering: .relaxed) }

    /// Requests read as a repeat of their connection's request before (byte for byte, or with new
    /// values of fields that frame nothing) and answered from that request, not parsed again
    /// (``RepeatedRequest``), since the server started.
    public var requestsRepeated: Int {
        state.withLock { $0.loops.reduce(0) { $0 + $1.requestsRepeated.load(ordering: .relaxed) } }
    }

    /// Sends of a shared body's file that a client's socket did not take at once, since the
    /// server started: the rest of each went from the file as the socket drained, not copied
    /// into the connection's memory.
    public var fileSendsResumed: Int { core.fileSendsResumed.load(ordering: .relaxed) }

    /// Binds, listens and starts the event loops; connections are accepted from then on.
    /// - Throws: ``SocketError`` naming the failed call (`getaddrinfo`, `socket`, `bind`, `listen`,
    ///   `epoll_create1`, `eventfd`, `pthread_create`) and its errno.
    public func start() throws(SocketError) {
        guard !state.withLock({ $0.started }) else { throw SocketError(call: "start", errno: EALREADY) }
        Syscall.ignoreSIGPIPE()
        let bound = try Syscall.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        var loops: [EventLoop] = []
        do throws(SocketError) {
            for index in 0..<max(2, ProcessInfoLite.activeProcessorCount) {
                let loop = try EventLoop(name: "hubhttp-loop-\(index)")
                try loop.start()
                loops.append(loop)
            }
        } catch {
            for loop in loops { loop.stop() }
            Syscall.close(bound.fd)
            throw error
        }
        let listeners = Listener.make(fd: bound.fd, loops: loops, balancing: configuration.balancing, core: core)
        let alreadyStarted = state.withLock { state -> Bool in
            if state.started { return true }
            state.started = true
            state.loops = loops
            state.listeners = listeners
            state.port = bound.port
            return false
        }
        guard !alreadyStarted else {
            for loop in loops { loop.stop() }
            Syscall.close(bound.fd)
            throw SocketError(call: "start", errno: EALREADY)
        }
        for listener in listeners { listener.start() }
    }

    deinit {
        // Dropped without shutdown(): stop accepting; each loop exits once its connections have
        // closed on their own.
        let (listeners, loops) = state.withLock { state in
            let taken = (state.listeners, state.loops)
            state.listeners = []
            state.loops = []
            return taken
        }
        for listener in listeners { listener.close() }
        for loop in loops { loop.stop() }
    }

    /// Graceful shutdown: stops accepting; in-flight requests finish (their responses carry
    /// `Connection: close`); idle connections get `timeouts.drainIdle` for a request already on
    /// its way; everything still open after `timeouts.drain` is closed. The loops then stop.
    public func shutdown() async {
        let (listeners, loops) = state.withLock { state in
            let taken = (state.listeners, state.loops)
            state.listeners = []
            state.loops = []
            return taken
        }
        let connections = core.beginDraining()
        for listener in listeners { listener.close() }
        for connection in connections { connection.beginDrain() }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.timeouts.drain
        while core.openConnections > 0, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        for connection in core.allConnections { connection.forceClose() }
        let hardDeadline = clock.now + .seconds(2)
        while core.openConnections > 0, clock.now < hardDeadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        for loop in loops { loop.stop() }
    }
}
