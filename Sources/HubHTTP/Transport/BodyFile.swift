import CEpoll
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A body's bytes copied once into a file of their own, so that the transport sends them with
/// `sendfile(2)`: the kernel hands the file's pages to the socket by reference instead of copying
/// the bytes from user memory on every response (as nginx does from the page cache). Worth it for
/// large bodies sent many times: the render cache's views.
///
/// By default the file is an anonymous in-memory file (`memfd_create`) sealed against writes,
/// growth and shrinking. With `HUB_BODY_FILE_DIR` naming a directory on a disk-backed file
/// system it is an unnamed temporary file there (`O_TMPFILE | O_EXCL`: no name, never linkable,
/// gone when closed), reopened read-only, whose pages are ordinary page cache that the kernel
/// splices to a socket in batches (shared memory goes page by page); where the directory cannot
/// take such a file (read-only, missing, no `O_TMPFILE`) sealed memory is used after all.
/// Either way nothing can write to it after it is made. A file of up to 1 MiB also keeps its
/// pages in a pipe (``PagePipe``), which each send tees from instead of `sendfile`.
///
/// The files are bounded process-wide, by count and by bytes (``budget``), so they never crowd
/// out connections' descriptors or memory: past the budget a body is simply sent by copy (and
/// their pipes by ``PagePipe/budget``: past it, a file is sent with `sendfile`).
/// The descriptor is closed when the last response holding the file lets it go (pages the
/// socket still references stay alive in the kernel until sent).
final class BodyFile: Sendable {
    /// The smallest body worth a file: below it one copy costs less than the extra system call.
    static let minBytes = 16 * 1024
    /// At most this many files and bytes at once (a tenth of the descriptor limit, at most 1,024 files).
    static let budget = Budget(files: min(1024, Budget.descriptorLimit() / 10), bytes: 64 * 1024 * 1024)
    /// Where unnamed files are made: ``directory(chosen:)`` of `HUB_BODY_FILE_DIR`. Opt-in: a
    /// disk-backed directory costs less CPU per large response but showed a longer tail
    /// (docs/PERFORMANCE.md).
    static let directory: String? = directory(chosen: getenv("HUB_BODY_FILE_DIR").map { String(cString: $0) })

    /// The directory `chosen` names; nil (sealed memory) when it is unset, empty, `memory`, or a
    /// directory in memory itself (tmpfs or ramfs: its pages are shared memory, no faster than a
    /// `memfd`, and such a `/tmp` is often small: a container's 16 MiB, or a Kubernetes
    /// `emptyDir` whose size limit evicts the pod).
    static func directory(chosen: String?) -> String? {
        guard let chosen, !chosen.isEmpty, chosen != "memory", !isInMemory(chosen) else { return nil }
        return chosen
    }

    /// Whether `path` is on tmpfs or ramfs (`statfs` magic numbers of linux/magic.h).
    static func isInMemory(_ path: String) -> Bool {
        let type = hub_file_system_type(path)
        return type == 0x0102_1994 || type == 0x8584_58F6
    }

    let descriptor: Int32
    let count: Int
    /// The file's pages held in a pipe, which an event loop's ``SplicePipe`` sends from; nil when
    /// there is none (the file is then sent with `sendfile`).
    let pages: PagePipe?

    /// A read-only copy of `bytes` (an unnamed file in `directory`, else sealed memory), or nil
    /// when the budget is spent or the kernel refuses both.
    init?(_ bytes: [UInt8], directory: String? = BodyFile.directory) {
        guard bytes.count >= Self.minBytes, Self.budget.reserve(bytes: bytes.count) else { return nil }
        guard let descriptor = directory.flatMap({ Self.unnamedFile(in: $0, holding: bytes) }) ?? Self.sealedMemory(holding: bytes)
        else {
            Self.budget.release(bytes: bytes.count)
            return nil
        }
        self.descriptor = descriptor
        self.count = bytes.count
        self.pages = PagePipe(pagesOf: descriptor, count: bytes.count)
    }

    /// An unnamed file in `directory` holding `bytes`, reopened read-only (the writable
    /// descriptor closed); nil when any step fails.
    private static func unnamedFile(in directory: String, holding bytes: [UInt8]) -> Int32? {
        let writable = open(directory, Self.temporaryFileFlags | O_RDWR | O_CLOEXEC, 0o600)
        guard writable >= 0 else { return nil }
        defer { Glibc.close(writable) }
        guard write(bytes, to: writable) else { return nil }
        let readOnly = open("/proc/self/fd/\(writable)", O_RDONLY | O_CLOEXEC)
        return readOnly >= 0 ? readOnly : nil
    }

    /// A sealed anonymous in-memory file holding `bytes`; nil when any step fails.
    private static func sealedMemory(holding bytes: [UInt8]) -> Int32? {
        guard let memfdCreate = Self.memfdCreate else { return nil }
        let descriptor = memfdCreate("hub-body", Self.memfdFlags)
        guard descriptor >= 0 else { return nil }
        guard write(bytes, to: descriptor), fcntl(descriptor, Self.addSeals, Self.allSeals) == 0 else {
            Glibc.close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let result = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if result > 0 {
                    offset += result
                } else if result < 0, errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }

    /// `O_TMPFILE | O_EXCL` (asm-generic/fcntl.h: `__O_TMPFILE | O_DIRECTORY`, then never
    /// linkable; Glibc declares `O_TMPFILE` only under `_GNU_SOURCE`).
    private static let temporaryFileFlags: Int32 = 0o20000000 | 0o200000 | O_EXCL

    /// `memfd_create`, looked up once: the Glibc module declares it only under `_GNU_SOURCE`.
    /// Nil on a C library without it (bodies are then sent by copy).
    private typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>?, UInt32) -> Int32
    private static let memfdCreate: MemfdCreate? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memfd_create")
        .map { unsafeBitCast($0, to: MemfdCreate.self) }
    /// `MFD_CLOEXEC | MFD_ALLOW_SEALING` (linux/memfd.h).
    private static let memfdFlags: UInt32 = 0x0001 | 0x0002
    /// `F_ADD_SEALS` (`F_LINUX_SPECIFIC_BASE + 9`) and `F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW |
    /// F_SEAL_WRITE` (linux/fcntl.h; glibc declares them only under `_GNU_SOURCE`).
    private static let addSeals: Int32 = 1024 + 9
    private static let allSeals: Int32 = 0x0001 | 0x0002 | 0x0004 | 0x0008

    deinit {
        pages?.close()
        Glibc.close(descriptor)
        Self.budget.release(bytes: count)
    }

    /// How many files and bytes may be held at once; reserved before a file is made.
    final class Budget: Sendable {
        let maxFiles: Int
        let maxBytes: Int
        private let files = Atomic<Int>(0)
        private let bytes = Atomic<Int>(0)

        init(files: Int, bytes: Int) {
            self.maxFiles = files
            self.maxBytes = bytes
        }

        /// Reserves one file of `count` bytes; false (nothing reserved) when either bound would pass.
        func reserve(bytes count: Int) -> Bool {
            guard files.add(1, ordering: .relaxed).newValue <= maxFiles else {
                files.subtract(1, ordering: .relaxed)
                return false
            }
            guard bytes.add(count, ordering: .relaxed).newValue <= maxBytes else {
                bytes.subtract(count, ordering: .relaxed)
                files.subtract(1, ordering: .relaxed)
                return false
            }
            return true
        }

        func release(bytes count: Int) {
            bytes.subtract(count, ordering: .relaxed)
            files.subtract(1, ordering: .relaxed)
        }

        /// Files and bytes held now.
        var held: (files: Int, bytes: Int) { (files.load(ordering: .relaxed), bytes.load(ordering: .relaxed)) }

        /// The process's soft limit on open descriptors.
        static func descriptorLimit() -> Int {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
            return Int(clamping: min(limit.rlim_cur, 1 << 20))
        }
    }
}
