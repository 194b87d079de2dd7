import Glibc
import HubHTTP
import HubSync

/// The one raw HTTP/1.1 client of the tests: a blocking loopback socket (IPv4 or IPv6) with
/// send and receive timeouts, whose reads are buffered so that pipelined responses, chunked
/// bodies and event streams parse. Call it from ``blocking(_:)``. Failures are
/// ``HarnessError``s. ``init(received:)`` reads bytes already at hand instead (a response
/// encoded in memory), with the same parser.
public final class LoopbackClient: Sendable {
    /// The socket; -1 for a client over bytes already received.
    public let fd: Int32
    private struct State {
        var buffer: [UInt8] = []
        var closed = false
    }
    private let state: Locked<State>

    /// Connects to `host:port` with `receiveTimeout` seconds for every read and write, from
    /// `source` when given (an IPv4 loopback address such as `127.0.0.7`: Linux answers the
    /// whole 127.0.0.0/8, so a test has as many distinct clients as it needs).
    public init(port: Int, host: String = "127.0.0.1", receiveTimeout: Double = 30, source: String? = nil) throws {
        let ipv6 = host.contains(":")
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: errno \(errno)") }
        var timeout = timeval(
            tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - receiveTimeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard bound == 0 else {
                    let code = errno
                    Glibc.close(fd)
                    throw HarnessError("bind to \(source) failed: errno \(code)")
                }
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw HarnessError("connect to \(host):\(port) failed: errno \(code)")
        }
        self.fd = fd
        state = Locked(State())
    }

    /// A client that reads `bytes` (and then end of stream) instead of a socket.
    public init(received bytes: [UInt8]) {
        fd = -1
        state = Locked(State(buffer: bytes, closed: true))
    }

    deinit { close() }

    /// Closes the socket (once).
    public func close() {
        let wasOpen = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        if wasOpen, fd >= 0 { Glibc.close(fd) }
    }

    /// Sends FIN (and stops reading) without closing the descriptor, as a client that leaves.
    public func disconnect() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sets a small receive buffer (before reading anything) so a non-reading client fills up fast.
    public func shrinkReceiveBuffer() {
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sends `text` as UTF-8.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends every byte (blocking).
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw HarnessError("send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads once more into the buffer: false at end of stream (or reset); throws on timeout.
    private func fill() throws -> Bool {
        guard fd >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            state.withLock { $0.buffer.append(contentsOf: chunk[0..<count]) }
            return true
        }
        let code = errno
        if count == 0 || code == ECONNRESET { return false }
        if code == EAGAIN || code == EWOULDBLOCK { throw HarnessError("read timed out") }
        throw HarnessError("recv failed: errno \(code)")
    }

    private func take(_ count: Int) -> [UInt8] {
        state.withLock { state in
            let taken = Array(state.buffer.prefix(count))
            state.buffer.removeFirst(min(count, state.buffer.count))
            return taken
        }
    }

    /// A line without its CRLF (or bare LF).
    public func readLine() throws -> String {
        while true {
            let line: String? = state.withLock { state in
                guard let index = state.buffer.firstIndex(of: 0x0A) else { return nil }
                var line = Array(state.buffer[..<index])
                state.buffer.removeFirst(index + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            if let line { return line }
            guard try fill() else { throw HarnessError("connection closed mid-line") }
        }
    }

    /// The next `count` bytes.
    public func readExactly(_ count: Int) throws -> [UInt8] {
        while state.withLock({ $0.buffer.count }) < count {
            guard try fill() else { throw HarnessError("connection closed before \(count) bytes of content") }
        }
        return take(count)
    }

    /// Everything until the peer closes (or resets).
    public func readToEnd() throws -> [UInt8] {
        while try fill() {}
        return take(Int.max)
    }

    /// Whether the peer closed the connection (EOF or reset) within the receive timeout,
    /// discarding any bytes that arrive first.
    public func waitForClose() -> Bool {
        while true {
            do {
                if try !fill() { return true }
                _ = take(Int.max)
            } catch {
                return false
            }
        }
    }
}
