#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import HubSync

/// Writes log lines to a file descriptor (standard error) from a thread of its own, so that a
/// slow or closed log pipe never blocks or ends the process.
///
/// Callers (event-loop threads among them) only append to a bounded queue and return. The
/// writer thread sends whatever is queued with `write(2)` in one batch. When the queue is full
/// (the reader is slower than the server) new lines are dropped and counted; a write that
/// fails (`EPIPE` from a closed pipe, `EAGAIN`, anything else) drops that batch and is
/// counted too. SIGPIPE is ignored process-wide by the HTTP server, so a closed pipe is an
/// error code here, never a signal.
public final class StandardErrorWriter: Sendable {
    /// Queued bytes at most; lines past it are dropped.
    public let capacityBytes: Int
    private let descriptor: Int32

    private struct State {
        var pending: [UInt8] = []
        var dropped = 0
        /// A batch taken from `pending` is being written.
        var writing = false
    }

    private let state = Locked(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    /// A writer to `descriptor` (default 2, standard error) holding at most `capacityBytes`.
    public init(descriptor: Int32 = 2, capacityBytes: Int = 4 << 20) {
        self.descriptor = descriptor
        self.capacityBytes = capacityBytes
        let thread = Thread { [self] in self.run() }
        thread.name = "hub-log-writer"
        thread.start()
    }

    /// The writer used by default: standard error, one per process.
    public static let standardError = StandardErrorWriter()

    /// Lines dropped because the queue was full or a write failed.
    public var droppedLines: Int { state.withLock { $0.dropped } }

    /// Queues `line` and a newline; never blocks on the descriptor.
    public func write(_ line: String) {
        let accepted = state.withLock { state -> Bool in
            guard state.pending.count + line.utf8.count + 1 <= capacityBytes else {
                state.dropped += 1
                return false
            }
            state.pending.append(contentsOf: line.utf8)
            state.pending.append(UInt8(ascii: "\n"))
            return true
        }
        if accepted { wakeUp.signal() }
    }

    /// Waits (at most `timeout`) until everything queued so far was written or dropped.
    public func flush(timeout: Duration = .seconds(1)) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, state.withLock({ !$0.pending.isEmpty || $0.writing }) {
            usleep(1000)
        }
    }

    private func run() {
        // Never take signals meant for the process's handlers.
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        var batch: [UInt8] = []
        while true {
            wakeUp.wait()
            batch.removeAll(keepingCapacity: true)
            state.withLock { state in
                swap(&state.pending, &batch)
                state.writing = !batch.isEmpty
            }
            guard !batch.isEmpty else { continue }
            let lost = send(batch) ? 0 : batch.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            state.withLock { state in
                state.dropped += lost
                state.writing = false
            }
        }
    }

    /// Writes all of `bytes`; `false` when the descriptor refused them.
    private func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return false  // EPIPE, EAGAIN, EBADF...: the line is lost, the process is not
                }
            }
            return true
        }
    }
}
