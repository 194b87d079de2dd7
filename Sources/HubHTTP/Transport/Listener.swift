import CEpoll

/// The listening socket, registered (level-triggered) on the first event loop: it accepts and
/// deals the new connections to the loops in turn.
///
/// `@unchecked Sendable` is safe because its mutable state (`next`, `closed`, `paused`) is
/// touched only on `loop`'s thread: events and timers run there, and ``start()`` and
/// ``close()`` are called through ``EventLoop/execute(_:)``.
final class Listener: EventLoopHandler, @unchecked Sendable {
    let fd: Int32
    private let loop: EventLoop
    private let loops: [EventLoop]
    private let core: ServerCore
    private var next = 0
    private var closed = false
    private var paused = false

    init(fd: Int32, loops: [EventLoop], core: ServerCore) {
        self.fd = fd
        self.loop = loops[0]
        self.loops = loops
        self.core = core
    }

    /// Starts accepting; on the first loop's thread.
    func start() {
        guard !closed else { return }
        if !loop.register(fd, self, events: EPOLLIN.rawValue) {
            // Only with the kernel out of memory; retry rather than never accept.
            pause()
        }
    }

    /// Stops accepting and closes the socket; on the first loop's thread.
    func close() {
        guard !closed else { return }
        closed = true
        if !paused { loop.deregister(fd, closing: true) }
        Syscall.close(fd)
    }

    func handleEvents(_ events: UInt32) {
        guard !closed, !paused else { return }
        // Up to 16 per turn, for fairness with the connections on this loop; level-triggered,
        // so the rest raise the event again.
        for _ in 0..<16 {
            switch Syscall.accept(fd) {
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
        loop.deregister(fd, closing: false)
        loop.schedule(at: MonotonicClock.now &+ 100_000_000) { [self] in
            paused = false
            start()
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
