import Foundation
import Glibc

/// A TCP socket bound to 127.0.0.1 on a port the system picks (listening with `backlog`, or not
/// listening when it is nil), and that port; shared by ``TestUpstream``, ``RefusingPort`` and
/// ``FullBacklogListener``.
func bindLoopbackSocket(listening backlog: Int32?, port: Int = 0, sharingPort: Bool = false) throws -> (fd: Int32, address: sockaddr_in) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var one: Int32 = 1
    if backlog != nil {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    }
    if sharingPort {
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, backlog.map({ listen(fd, $0) == 0 }) ?? true else { close(fd); throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, address)
}

/// Whether a socket could listen on 127.0.0.1:`port` now (bound and released at once): false
/// while another socket still listens there.
public func loopbackPortIsFree(_ port: Int) -> Bool {
    guard let (fd, _) = try? bindLoopbackSocket(listening: 1, port: port) else { return false }
    close(fd)
    return true
}
