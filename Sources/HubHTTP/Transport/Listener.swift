import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket on one event loop.
///
/// With ``HTTPServerConfiguration/Balancing/idleLoopFirst`` every loop has a `Listener` of its
/// own on the one socket, registered with `EPOLLEXCLUSIVE`: the kernel wakes one loop that is
/// waiting in `epoll_wait` for a new connection (the first registered that is idle), skips the
/// loops that are busy, and the loop that accepts keeps the connection. Under light load the
/// connections gather on few loops, which then wake less often; under heavy load they go to
/// whichever loop has time; a loop held up by a slow handler takes none. With
/// ``HTTPServerConfiguration/Balancing/roundRobin`` there is one `Listener`, on the first loop,
/// that deals each new connection to the next loop in turn.
///
/// `@unchecked Sendable` is safe because its mutable state (`next`, `exclusive`, `closed`,
/// `paused`) is touched only on `loop`'s thread: events and timers run there, and ``start()``
/// and ``close()`` hand their work to it with ``EventLoop/execute(_:)``.
final class Listener: EventLoopHandler, @unchecked Sendable {
    private let socket: ListeningSocket
    private let loop: EventLoop
    private let loops: [EventLoop]
    /// Registered with `EPOLLEXCLUSIVE` (false after a kernel refused it: every loop is then
    /// woken for a new connection and one wins the `accept`).
    private var exclusive: Bool
    private let core: ServerCore
    private var next = 0
    private var closed = false
    private var paused = false

    /// A listener on `loop` that deals its connections to `loops` in turn (`[loop]`: keeps
    /// them); `exclusive` registers it with `EPOLLEXCLUSIVE` (one of several loops on `socket`).
    init(socket: ListeningSocket, loop: EventLoop, dealingTo loops: [EventLoop], exclusive: Bool, core: ServerCore) {
        self.socket = socket
        self.loop = loop
        self.loops = loops
        self.exclusive = exclusive
        self.core = core
    }

    /// The listeners on the listening socket `fd` that `balancing` asks for (each closes on
    /// its own loop; the last closes `fd`).
    static func make(
        fd: Int32, loops: [EventLoop], balancing: HTTPServerConfiguration.Balancing, core: ServerCore
    ) -> [Listener] {
        switch balancing {
        case .idleLoopFirst:
            let socket = ListeningSocket(fd: fd, holders: loops.count)
            return loops.map { Listener(socket: socket, loop: $0, dealingTo: [$0], exclusive: true, core: core) }
        case .roundRobin:
            let socket = ListeningSocket(fd: fd, holders: 1)
            return [Listener(socket: socket, loop: loops[0], dealingTo: loops, exclusive: false, core: core)]
        }
    }

    /// Starts accepting, on the listener's loop.
    func start() { loop.execute { [self] in listen() } }

    /// Stops accepting, on the listener's loop; the last listener to stop closes the socket.
    func close() { loop.execute { [self] in stopListening() } }

    private var events: UInt32 { EPOLLIN.rawValue | (exclusive ? EPOLLEXCLUSIVE.rawValue : 0) }

    private func listen() {
        guard !closed else { return }
        if loop.register(socket.fd, self, events: events) { return }
        if exclusive, errno == EINVAL {
            // A kernel before 4.5 (or a sandbox) without EPOLLEXCLUSIVE: plain registration.
            exclusive = false
            if loop.register(socket.fd, self, events: events) { return }
        }
        // Only with the kernel out of memory; retry rather than never accept.
        pause()
    }

    private func stopListening() {
        guard !closed else { return }
        closed = true
        if !paused { loop.deregister(socket.fd, closing: false) }
        socket.release()
    }

    func handleEvents(_ events: UInt32) {
        guard !closed, !paused else { return }
        // Up to 16 per turn, for fairness with the connections on this loop; level-triggered,
        // so the rest raise the event again (on this loop, or on another that is idle).
        for _ in 0..<16 {
            switch Syscall.accept(socket.fd) {
            case .accepted(let client, let address):
                let target = loops[next % loops.count]
                next &+= 1
                let connection = Connection(fd: client, remoteAddress: address, loop: target, core: core)
                if !core.register(connection) {
                    Self.reject(client)
                } else if target === loop {
                    connection.start()
                } else {
                    target.execute { connection.start() }
                }
            case .wouldBlock:
                // Another loop took it first (idleLoopFirst), or the backlog is empty.
                return
            case .failed:
                // EMFILE, ENFILE, ENOBUFS...: stop accepting briefly rather than spin.
                pause()
                return
            }
        }
    }

    private func pause() {
        guard !paused, !closed else { return }
        paused = true
        loop.deregister(socket.fd, closing: false)
        loop.schedule(at: MonotonicClock.now &+ 100_000_000) { [self] in
            paused = false
            listen()
        }
    }

    private static let rejection: [UInt8] = {
        let problem = ProblemDetails(
            status: .serviceUnavailable, code: "connection_limit", detail: "The server has too many open connections."
        )
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/problem+json")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Retry-After", value: "1")
        let body = problem.jsonBytes
        let head = ResponseEncoder.head(
            status: .serviceUnavailable, headers: headers, framing: .length(body.count), keepAlive: false,
            version: .http1_1, requestId: nil
        )
        return head + body
    }()

    /// Past the connection cap (or while draining): one best-effort 503, then close.
    private static func reject(_ fd: Int32) {
        let bytes = rejection
        _ = bytes.withUnsafeBytes { Syscall.send(fd, $0, UnsafeRawBufferPointer(start: nil, count: 0)) }
        Syscall.shutdownWrite(fd)
        Syscall.close(fd)
    }
}
