import Foundation
import HubPrimitives
import HubSync
#if canImport(Glibc)
import Glibc
#endif

/// Watches a config directory with inotify and calls back once a burst of changes has settled.
///
/// Watches the directory and every subdirectory under it (following symlinks), for files
/// written, created, moved or deleted. That covers an editor's save (a write, or a temporary
/// file renamed over the original) and how Kubernetes updates a mounted ConfigMap: the files
/// are symlinks into a `..data` symlink to a timestamped directory, and an update swaps `..data`
/// atomically (a rename in the watched directory). After every callback the watches are set up
/// again, so subdirectories that are new, or symlinks that now point elsewhere, are followed.
///
/// Events are debounced: the callback runs once no event has arrived for `debounce` (and at
/// the latest `maximumDelay` after the first event of a burst). Only names that can matter
/// wake it: `*.json`, directories and `..data`; editors' swap and backup files do not. Runs
/// on a thread of its own; ``stop()`` ends it.
package final class ConfigWatcher: Sendable {
    /// Why watching could not start.
    package struct StartError: Error, CustomStringConvertible {
        package let description: String
    }

    private let directory: String
    private let debounce: Duration
    private let maximumDelay: Duration
    private let onChange: @Sendable () -> Void
    private let inotifyFD: Int32
    /// A pipe whose write end ``stop()`` closes, to wake the thread's `poll`.
    private let wakeFDs: (read: Int32, write: Int32)
    private let stopped = Locked(false)

    /// Starts watching `directory`. Throws when inotify is not available (no kernel support,
    /// or the per-user instance limit `fs.inotify.max_user_instances` is reached).
    package init(
        directory: String, debounce: Duration, maximumDelay: Duration = .seconds(1),
        onChange: @escaping @Sendable () -> Void
    ) throws {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            throw StartError(description: "inotify_init1 failed: \(String(cString: strerror(errno)))")
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipeFDs.withUnsafeMutableBufferPointer({ pipe($0.baseAddress) }) == 0 else {
            close(fd)
            throw StartError(description: "pipe failed: \(String(cString: strerror(errno)))")
        }
        for pipeFD in pipeFDs {
            _ = fcntl(pipeFD, F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeFD, F_SETFL, O_NONBLOCK)
        }
        self.directory = directory
        self.debounce = debounce
        self.maximumDelay = maximumDelay
        self.onChange = onChange
        self.inotifyFD = fd
        self.wakeFDs = (pipeFDs[0], pipeFDs[1])
        addWatches()
        let thread = Thread { [self] in run() }
        thread.name = "hub-config-watcher"
        thread.start()
    }

    /// Stops watching (the thread exits and closes its descriptors).
    package func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { close(wakeFDs.write) }
    }

    private static let mask: UInt32 = UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB)
        | UInt32(IN_DELETE_SELF | IN_MOVE_SELF)

    /// Watches the directory and its subdirectories (depth ≤ 4, hidden ones skipped except
    /// through `..data`). Adding a watch for an inode already watched only refreshes it.
    private func addWatches() {
        var pending: [(path: String, depth: Int)] = [(directory, 0)]
        while let (path, depth) = pending.popLast() {
            guard inotify_add_watch(inotifyFD, path, Self.mask) >= 0, depth < 4 else { continue }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where !name.hasPrefix(".") {
                let child = (path as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: child, isDirectory: &isDirectory), isDirectory.boolValue {
                    pending.append((child, depth + 1))
                }
            }
        }
    }

    private func run() {
        defer {
            close(inotifyFD)
            close(wakeFDs.read)
        }
        var burstStart: ContinuousClock.Instant?
        while true {
            let timeout: Int32
            if let burstStart {
                let remaining = min(debounce, maximumDelay - (ContinuousClock.now - burstStart))
                timeout = Int32(max(0, min(Double(Int32.max), remaining.inMilliseconds.rounded(.down))))
            } else {
                timeout = -1
            }
            var fds = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout)
            if ready < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 || stopped.withLock({ $0 }) { return }
            if ready > 0, fds[0].revents != 0 {
                if readEvents(), burstStart == nil { burstStart = .now }
                continue
            }
            // Quiet for the debounce time (or the burst went on past the maximum delay).
            if burstStart != nil {
                burstStart = nil
                addWatches()
                onChange()
            }
        }
    }

    /// Drains the inotify queue; `true` when some event can matter (see the type's comment).
    private func readEvents() -> Bool {
        var relevant = false
        let headerSize = MemoryLayout<inotify_event>.size
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            var offset = 0
            while offset + headerSize <= count {
                let (mask, nameLength) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                let nameBytes = buffer[(offset + headerSize)..<min(count, offset + headerSize + nameLength)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += headerSize + nameLength
                if Self.matters(name: name, mask: mask) { relevant = true }
            }
        }
    }

    package static func matters(name: String, mask: UInt32) -> Bool {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 || mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 { return true }
        if mask & UInt32(IN_IGNORED) != 0 { return false }
        if name.isEmpty || name == "..data" { return true }
        if name.hasPrefix(".") { return false }
        return name.hasSuffix(".json") || mask & UInt32(IN_ISDIR) != 0
    }
}
