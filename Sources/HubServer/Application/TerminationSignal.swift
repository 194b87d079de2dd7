import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// The write end of the self-pipe, for the signal handler. Assigned once, inside
/// `TerminationSignal.pipe`'s one-time initializer, before the handlers are installed, and only
/// read afterwards; a signal handler cannot capture context, hence a global.
/// `nonisolated(unsafe)` is safe because of that write-once-before-use order.
nonisolated(unsafe) private var terminationPipeWriteFD: Int32 = -1

/// Async-signal-safe: one `write` to the pipe, `errno` preserved.
private let terminationHandler: @convention(c) (Int32) -> Void = { _ in
    let saved = errno
    var byte: UInt8 = 1
    _ = write(terminationPipeWriteFD, &byte, 1)
    errno = saved
}

/// SIGTERM and SIGINT, caught by a plain handler that writes a byte to a pipe (the self-pipe
/// trick), read by a Dispatch read source.
///
/// Why not `DispatchSource.makeSignalSource`: with it, a SIGTERM sent right after a burst of load
/// was once ignored in these benchmarks (the server kept serving; a second SIGTERM drained it),
/// and we could not reproduce it in 40 further rounds, so we could not pin it on libdispatch's
/// Linux signal path (a `signalfd`, which sees only signals left pending, while the main thread
/// waits in `sigsuspend` with every signal unblocked). A handler runs on whichever thread takes
/// the signal, so a signal cannot go unnoticed that way. A lost SIGTERM means no drain: the
/// orchestrator kills the process after its grace period.
enum TerminationSignal {
    /// The pipe, created and the handlers installed on first use.
    private static let pipe: (read: Int32, write: Int32) = {
        var fds: [Int32] = [-1, -1]
        let created = fds.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) }
        precondition(created == 0, "pipe failed: errno \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        terminationPipeWriteFD = fds[1]
        for signalNumber in [SIGTERM, SIGINT] {
            _ = signal(signalNumber, terminationHandler)
        }
        return (fds[0], fds[1])
    }()

    /// Suspends until SIGTERM or SIGINT arrives.
    static func wait() async {
        let readFD = pipe.read
        let resumer = SignalResumer()
        let source = DispatchSource.makeReadSource(fileDescriptor: readFD, queue: .global())
        source.setEventHandler {
            var buffer = (UInt64(0), UInt64(0))
            _ = withUnsafeMutableBytes(of: &buffer) { read(readFD, $0.baseAddress, $0.count) }
            resumer.resume()
        }
        source.resume()
        await resumer.wait()
        source.cancel()
    }
}
