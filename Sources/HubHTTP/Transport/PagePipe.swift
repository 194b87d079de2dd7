import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// A body file's pages held in a pipe, so that each send copies page references into an event
/// loop's ``SplicePipe`` (`tee(2)`) instead of looking every page of the file up again
/// (`sendfile(2)` of shared memory goes through `shmem_file_splice_read` a page at a time).
///
/// The pipe is filled once with `splice(2)` (references, not copies) and its write end closed.
/// It references the file's own pages, which stay valid while the file is open (sealed memory
/// or a read-only unnamed file, which nothing writes to): ``BodyFile``'s `deinit` closes the
/// pipe before the file.
struct PagePipe: Sendable {
    /// Pipes held at once and the bytes of their capacity. The kernel counts a pipe's capacity,
    /// not what it holds, against a user's `pipe-user-pages-soft` (64 MiB of 4 KiB pages by
    /// default), past which every new pipe of that user is cut to two pages: half of that here
    /// leaves the rest to everything else the user runs. A tenth of the descriptor limit bounds
    /// the count, as for the files themselves.
    static let budget = BodyFile.Budget(files: min(1024, BodyFile.Budget.descriptorLimit() / 10), bytes: 32 * 1024 * 1024)

    /// The read end, which ``SplicePipe/send(from:count:to:)`` tees from.
    let readEnd: Int32
    /// The pipe's capacity in bytes (what the budget holds for it).
    let capacity: Int

    /// A pipe holding references to the first `count` bytes' pages of `file`, sized to them; nil
    /// when the body is larger than an event loop's ``SplicePipe`` takes, the budget is spent, or
    /// the kernel refuses a step (the file is then sent with `sendfile`).
    init?(pagesOf file: Int32, count: Int, budget: BodyFile.Budget = PagePipe.budget) {
        guard count > 0, count <= SplicePipe.preferredCapacity else { return nil }
        var ends: [Int32] = [-1, -1]
        guard hub_pipe2(&ends, O_CLOEXEC | O_NONBLOCK) == 0 else { return nil }
        defer { Glibc.close(ends[1]) }
        // The kernel rounds a capacity up to a power of two pages; one smaller than the default
        // (16 pages) is allowed and takes less of the user's allowance.
        _ = fcntl(ends[1], SplicePipe.setPipeSize, Int32(count))
        let capacity = Int(fcntl(ends[1], SplicePipe.getPipeSize))
        guard capacity >= count, budget.reserve(bytes: capacity) else {
            Glibc.close(ends[0])
            return nil
        }
        var offset: Int64 = 0
        while offset < count {
            let moved = hub_splice(file, &offset, ends[1], UInt(count - Int(offset)), SplicePipe.nonBlocking)
            if moved > 0 || (moved < 0 && errno == EINTR) { continue }
            Glibc.close(ends[0])
            budget.release(bytes: capacity)
            return nil
        }
        self.readEnd = ends[0]
        self.capacity = capacity
    }

    /// Closes the pipe and gives its room back to `budget` (the one it was made with).
    func close(budget: BodyFile.Budget = PagePipe.budget) {
        Glibc.close(readEnd)
        budget.release(bytes: capacity)
    }
}
