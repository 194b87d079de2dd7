import Foundation
import HubSync
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests that run real binaries
/// (`hub-server`, `promtool`, PostgreSQL's `initdb` and `pg_ctl`).
///
/// Why not `Foundation.Process`: on Linux, Swift 6.3.1's `Process.run()` crashes intermittently
/// (SIGSEGV in a `memcpy` of `findMaximumOpenFromProcSelfFD`: it copies the whole 256-byte
/// `d_name` of a `dirent` that `readdir` sized shorter; swift-corelibs-foundation PR #5472, not
/// in this toolchain). It took the whole test process down about one run in five here.
///
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// The raw wait status once the child has been reaped.
    private let status = Locked<Int32?>(nil)

    /// Starts `executable` with `arguments` and `environment`; `stdin`, `stdout` and `stderr`
    /// become the given descriptors (`nil`: `/dev/null`).
    public init(
        executable: String, arguments: [String], environment: [String: String],
        stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(stdin, Int32(0)), (stdout, Int32(1)), (stderr, Int32(2))] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Nothing else crosses: descriptors 3 and up are closed in the child (else an inherited
        // copy of a pipe's write end would keep the child's stdin from ever reaching its end).
        guard Self.addCloseFrom(&actions, 3) == 0 else { throw HarnessError("addclosefrom_np failed") }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw HarnessError("posix_spawn \(executable) failed: \(result)") }
        pid = child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: the
    /// Glibc module declares it only under `_GNU_SOURCE`.
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Reaps the child without blocking; `true` while it runs.
    public var isRunning: Bool {
        status.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            return status == nil
        }
    }

    /// Blocks until the child exits; returns its raw wait status.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        if let reaped = status.withLock({ $0 }) { return reaped }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        status.withLock { $0 = raw }
        return raw
    }

    /// `true` when the child exited (rather than being killed by a signal).
    public var exitedNormally: Bool {
        guard let raw = status.withLock({ $0 }) else { return false }
        return raw & 0x7F == 0
    }

    /// The exit code (valid when ``exitedNormally``).
    public var exitCode: Int32 {
        guard let raw = status.withLock({ $0 }) else { return -1 }
        return (raw >> 8) & 0xFF
    }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// SIGTERM, then reaps it.
    public func terminate() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        waitUntilExit()
    }
}
