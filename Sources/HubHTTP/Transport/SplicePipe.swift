import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// An event loop's pipe for sending a body file's pages by reference: `tee(2)` copies the page
/// references a ``BodyFile`` keeps in its ``PagePipe`` into this one, and `splice(2)` hands them
/// to the socket. For a file in shared memory (a sealed `memfd`) this costs less than
/// `sendfile(2)`, which looks each page up again on every send (`shmem_file_splice_read`):
/// about 1 us less CPU per 40 KB response (docs/PERFORMANCE.md, the twelfth pass).
/// Owned by one loop and used on its thread only; empty between sends.
final class SplicePipe {
    /// The capacity asked for: `/proc/sys/fs/pipe-max-size`'s default, the most an unprivileged
    /// process may set. Larger bodies are sent with `sendfile`.
    static let preferredCapacity = 1 << 20

    let readEnd: Int32
    let writeEnd: Int32
    /// How many bytes a body may have to go through it whole.
    let capacity: Int
    /// `/dev/null`, where what the socket did not take is dropped (it is then sent by copy).
    private let discard: Int32
    /// False once the pipe could not be emptied: it is never used again (what it still holds
    /// would go out ahead of the next body).
    private var usable = true

    /// The pipe, as large as the kernel allows an unprivileged process (`pipe-max-size`, 1 MiB
    /// by default); nil when no pipe can be made.
    init?(preferredCapacity: Int = SplicePipe.preferredCapacity) {
        var ends: [Int32] = [-1, -1]
        guard hub_pipe2(&ends, O_CLOEXEC | O_NONBLOCK) == 0 else { return nil }
        let discard = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard discard >= 0 else {
            Glibc.close(ends[0])
            Glibc.close(ends[1])
            return nil
        }
        _ = fcntl(ends[1], Self.setPipeSize, Int32(preferredCapacity))
        let capacity = fcntl(ends[1], Self.getPipeSize)
        self.readEnd = ends[0]
        self.writeEnd = ends[1]
        self.discard = discard
        self.capacity = max(0, Int(capacity))
    }

    deinit {
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
        Glibc.close(discard)
    }

    /// Sends the `count` bytes the pipe `pages` holds to `socket`: how many the socket took
    /// (`.bytes`, possibly fewer than `count`: the rest is then the caller's to send another
    /// way), `.wouldBlock` when it took none, `.closed` on an error; nil when the pages could not
    /// be copied here (nothing was sent).
    func send(from pages: Int32, count: Int, to socket: Int32) -> IOResult? {
        guard usable, count <= capacity else { return nil }
        let teed = retrying { hub_tee(pages, writeEnd, UInt(count), Self.nonBlocking) }
        guard teed == count else {
            if teed > 0 { drop(teed) }
            return nil
        }
        var sent = 0
        var failed = false
        while sent < count {
            let moved = retrying { hub_splice(readEnd, nil, socket, UInt(count - sent), Self.nonBlocking) }
            if moved > 0 {
                sent += moved
            } else {
                // EAGAIN: the socket is full, and an edge follows when it has room. Anything else
                // is an error (0, an empty pipe, cannot happen after a whole tee).
                failed = moved == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                break
            }
        }
        if sent < count { drop(count - sent) }
        if failed { return .closed }
        return sent == 0 ? .wouldBlock : .bytes(sent)
    }

    /// Empties `count` bytes from the pipe into `/dev/null` (page references released, nothing
    /// copied).
    private func drop(_ count: Int) {
        var left = count
        while left > 0 {
            let moved = retrying { hub_splice(readEnd, nil, discard, UInt(left), Self.nonBlocking) }
            guard moved > 0 else {
                usable = false
                return
            }
            left -= moved
        }
    }

    private func retrying(_ call: () -> Int) -> Int {
        while true {
            let result = call()
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    /// `F_SETPIPE_SZ` and `F_GETPIPE_SZ` (`F_LINUX_SPECIFIC_BASE + 7, + 8`).
    static let setPipeSize: Int32 = 1024 + 7
    static let getPipeSize: Int32 = 1024 + 8
    /// `SPLICE_F_NONBLOCK` (linux/splice.h): never wait for room in a pipe.
    static let nonBlocking: UInt32 = 2
}
