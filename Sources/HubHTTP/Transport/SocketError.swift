#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, and the `errno` captured right after it.
public struct SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system call that failed, for example `bind`.
    public let call: String
    /// The `errno` value.
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
