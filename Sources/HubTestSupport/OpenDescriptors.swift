import Glibc
import HubSync

/// The connection descriptors a ``TestUpstream`` may have to break on `stop()`.
final class OpenDescriptors: Sendable {
    private let fds = Locked(Set<Int32>())

    func insert(_ fd: Int32) { fds.withLock { _ = $0.insert(fd) } }

    /// Removes `fd` before its owner closes it, so `shutdownAll` never touches a reused number.
    func remove(_ fd: Int32) { fds.withLock { _ = $0.remove(fd) } }

    func shutdownAll() { fds.withLock { for fd in $0 { shutdown(fd, Int32(SHUT_RDWR)) } } }
}
