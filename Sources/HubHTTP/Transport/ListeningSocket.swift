import Synchronization

/// The bound, listening socket that one or more ``Listener``s (one per event loop) accept from:
/// closed when the last of them lets it go, so that no loop calls `accept` on a descriptor
/// already closed (and perhaps reused for another file) while it is still registered there.
final class ListeningSocket: Sendable {
    let fd: Int32
    private let holders: Atomic<Int>

    /// `fd`, to be released by `holders` listeners.
    init(fd: Int32, holders: Int) {
        self.fd = fd
        self.holders = Atomic(holders)
    }

    /// One holder is done (its loop no longer watches the socket); the last closes it.
    func release() {
        if holders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            Syscall.close(fd)
        }
    }
}
