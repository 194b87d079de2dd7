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

    /// Binds the socket; throws when the system has no socket or port to give. `shared`: with
    /// `SO_REUSEPORT`, so a ``TestUpstream`` of this process can listen on the same port
    /// (``TestUpstream/init(sharing:handler:)``): connections reach that upstream while it
    /// listens and are refused once it stops, and no other socket can take the port meanwhile.
    /// An upstream URL that answers, then refuses, then answers again.
    public init(shared: Bool = false) throws {
        let (fd, address) = try bindLoopbackSocket(listening: nil, sharingPort: shared)
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit { close(fd) }
}
