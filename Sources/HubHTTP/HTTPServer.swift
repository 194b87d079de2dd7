import Synchronization
import Dispatch
import HubSync
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1.1 server: a listening socket, a read source that accepts, and one ``Connection``
/// per client on its own serial queue.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: router)
/// try server.start()
/// print(server.localPort)
/// await server.shutdown()
/// ```
///
/// Connection cap: past `limits.connections` (and while shutting down) a new connection is accepted,
/// answered `503` with a problem body and `Connection: close`, and closed at once, so clients learn
/// why instead of waiting in the backlog.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    private let core: ServerCore

    private struct ListenerState {
        var fd: Int32 = -1
        var port = 0
        var source: (any DispatchSourceRead)?
        var paused = false
        var started = false
    }

    /// `Mutex` makes the listener state safe to touch from `start`, `shutdown` and the accept queue.
    private let listener = Locked(ListenerState())
    private let acceptQueue = DispatchQueue(label: "hubhttp.accept")
    private let executors: [QueueTaskExecutor]
    private let nextQueue = Atomic<Int>(0)

    /// A server that answers every request with `responder`; call ``start()`` to listen.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.core = ServerCore(configuration: configuration, responder: responder)
        let count = max(2, ProcessInfoLite.activeProcessorCount)
        executors = (0..<count).map { QueueTaskExecutor(queue: DispatchQueue(label: "hubhttp.io.\($0)")) }
    }

    /// The bound port (useful with port 0); 0 before ``start()``.
    public var localPort: Int { listener.withLock { $0.port } }

    /// The bound address as `host:port` (IPv6 in brackets).
    public var localAddress: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(host):\(localPort)"
    }

    /// Connections currently open.
    public var openConnections: Int { core.openConnections }

    /// Binds and listens; returns once the socket accepts connections.
    /// - Throws: ``SocketError`` naming the failed call (`getaddrinfo`, `socket`, `bind`, `listen`) and its errno.
    public func start() throws(SocketError) {
        guard !listener.withLock({ $0.started }) else { throw SocketError(call: "start", errno: EALREADY) }
        Syscall.ignoreSIGPIPE()
        let bound = try Syscall.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        let fd = bound.fd
        let acceptQueue = self.acceptQueue
        listener.withLock { [weak self] state in
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
            source.setEventHandler { [weak self] in self?.acceptAvailable(fd) }
            source.setCancelHandler { Syscall.close(fd) }
            state.fd = fd
            state.port = bound.port
            state.source = source
            state.started = true
            source.resume()
        }
    }

    deinit {
        // Dropped without shutdown(): stop accepting (connections already open finish on their own).
        listener.withLock { state in
            guard let source = state.source else { return }
            source.cancel()
            if state.paused { source.resume() }
            state.source = nil
        }
    }

    /// Graceful shutdown: stops accepting, lets in-flight requests finish (their responses carry
    /// `Connection: close`), closes idle connections at once and the rest after `timeouts.drain`.
    public func shutdown() async {
        let source: (any DispatchSourceRead)? = listener.withLock { state in
            let source = state.source
            state.source = nil
            if state.paused, let source {
                state.paused = false
                source.resume()
            }
            return source
        }
        source?.cancel()
        for connection in core.beginDraining() { connection.beginDrain() }
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
    }

    /// Accept handler (on `acceptQueue`): up to 16 connections per event, for fairness.
    private func acceptAvailable(_ listenFD: Int32) {
        for _ in 0..<16 {
            switch Syscall.accept(listenFD) {
            case .accepted(let fd, let address):
                let index = nextQueue.add(1, ordering: .relaxed).oldValue
                let executor = executors[index % executors.count]
                let connection = Connection(fd: fd, remoteAddress: address, executor: executor, core: core)
                if core.register(connection) {
                    connection.start()
                } else {
                    Self.reject(fd)
                }
            case .wouldBlock:
                return
            case .failed:
                // EMFILE, ENFILE, ENOBUFS...: stop accepting briefly rather than spin.
                pauseAccepting()
                return
            }
        }
    }

    private func pauseAccepting() {
        listener.withLock { state in
            guard !state.paused, let source = state.source else { return }
            state.paused = true
            source.suspend()
        }
        acceptQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { [weak self] in
            self?.listener.withLock { state in
                guard state.paused, let source = state.source else { return }
                state.paused = false
                source.resume()
            }
        }
    }

    private static let rejection: [UInt8] = {
        let problem = ProblemDetails(
            status: .serviceUnavailable, code: "connection_limit", detail: "The server has too many open connections."
        )
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/problem+json")
        headers.add(name: "Retry-After", value: "1")
        let body = problem.jsonBytes
        let head = ResponseEncoder.head(
            status: .serviceUnavailable, headers: headers, framing: .length(body.count), keepAlive: false,
            version: .http1_1, requestId: nil
        )
        return head + body
    }()

    /// Past the connection cap: one best-effort 503, then close.
    private static func reject(_ fd: Int32) {
        let bytes = rejection
        _ = bytes.withUnsafeBytes { Syscall.send(fd, $0, UnsafeRawBufferPointer(start: nil, count: 0)) }
        Syscall.shutdownWrite(fd)
        Syscall.close(fd)
    }
}
