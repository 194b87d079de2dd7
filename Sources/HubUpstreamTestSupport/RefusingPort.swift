import Foundation
import Glibc

/// A loopback port that refuses connections for as long as this object lives: a TCP socket
/// bound to 127.0.0.1:0 that never listens. Linux answers a SYN to it with a reset
/// (`ECONNREFUSED`), and because the socket stays bound no other test can take the port;
/// a port that was merely freed could be reused by another test's server at once.
public final class RefusingPort {
    /// The bound port.
    public let port: Int
    private let fd: Int32

    /// Binds the socket; throws when the system has no socket or port to give.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit { close(fd) }
}
