import Dispatch
import HubSync
#if canImport(Glibc)
import Glibc
#endif

/// The write end of each signal's self-pipe, by signal number (-1: none). Allocated once; an
/// entry is written before its handler is installed and only read afterwards (by the handler),
/// and a signal handler cannot capture context, hence a global. `nonisolated(unsafe)` is safe
/// because of that write-before-install order; the pointer itself never changes.
nonisolated(unsafe) private let signalPipeWriteFDs: UnsafeMutablePointer<Int32> = {
    let table = UnsafeMutablePointer<Int32>.allocate(capacity: 65)
    table.initialize(repeating: -1, count: 65)
    return table
}()

/// Async-signal-safe: one `write` to the signal's pipe, `errno` preserved.
private let signalPipeHandler: @convention(c) (Int32) -> Void = { signalNumber in
    let saved = errno
    if signalNumber >= 0 && signalNumber < 65 {
        let fd = signalPipeWriteFDs[Int(signalNumber)]
        var byte: UInt8 = 1
        if fd >= 0 { _ = write(fd, &byte, 1) }
    }
    errno = saved
}

/// Signals caught by a plain handler that writes a byte to a pipe (the self-pipe trick), read
/// by a Dispatch read source: ``termination`` (SIGTERM, SIGINT) drains the server, ``hangup``
/// (SIGHUP) reloads its config.
///
/// Why not `DispatchSource.makeSignalSource`: with it, a SIGTERM sent right after a burst of load
/// was once ignored in these benchmarks (the server kept serving; a second SIGTERM drained it),
/// and we could not reproduce it in 40 further rounds, so we could not pin it on libdispatch's
/// Linux signal path (a `signalfd`, which sees only signals left pending, while the main thread
/// waits in `sigsuspend` with every signal unblocked). A handler runs on whichever thread takes
/// the signal, so a signal cannot go unnoticed that way. A lost SIGTERM means no drain: the
/// orchestrator kills the process after its grace period.
final class SignalPipe: Sendable {
    /// SIGTERM and SIGINT.
    static let termination = SignalPipe(signals: [SIGTERM, SIGINT])
    /// SIGHUP (the nginx and Prometheus convention for "reload your config").
    static let hangup = SignalPipe(signals: [SIGHUP])

    private let signals: [Int32]
    private let readFD: Int32

    /// Creates the pipe; ``notifications()`` installs the handlers.
    private init(signals: [Int32]) {
        var fds: [Int32] = [-1, -1]
        let created = fds.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) }
        precondition(created == 0, "pipe failed: errno \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        self.signals = signals
        self.readFD = fds[0]
        for signalNumber in signals { signalPipeWriteFDs[Int(signalNumber)] = fds[1] }
    }

    private func installHandlers() {
        for signalNumber in signals { _ = signal(signalNumber, signalPipeHandler) }
    }

    /// Each arrival of one of the signals (several arriving together may come as one), until
    /// the consumer stops iterating.
    func notifications() -> AsyncStream<Void> {
        installHandlers()
        let readFD = self.readFD
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let source = DispatchSource.makeReadSource(fileDescriptor: readFD, queue: .global())
        source.setEventHandler {
            var buffer = (UInt64(0), UInt64(0))
            _ = withUnsafeMutableBytes(of: &buffer) { read(readFD, $0.baseAddress, $0.count) }
            continuation.yield()
        }
        source.resume()
        // The source is used only through the lock once handed to the termination handler.
        let held = Locked<(any DispatchSourceRead)?>(source)
        continuation.onTermination = { _ in held.withLock { $0?.cancel() } }
        return stream
    }
}
