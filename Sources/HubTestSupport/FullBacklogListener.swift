import Foundation
import Glibc

/// A listener whose accept queue is full and never drained: new connections hang in the handshake
/// (Linux drops their SYNs), which is how a connect timeout looks on loopback.
public final class FullBacklogListener {
    public let port: Int
    private var fds: [Int32] = []

    public init() throws {
        let (fd, bound) = try bindLoopbackSocket(listening: 0)
        var address = bound
        port = Int(UInt16(bigEndian: address.sin_port))
        fds.append(fd)
        // Fill the accept queue with non-blocking connects nobody accepts.
        for _ in 0..<3 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fds.append(client)
        }
        usleep(50_000)
    }

    deinit { for fd in fds { close(fd) } }
}
