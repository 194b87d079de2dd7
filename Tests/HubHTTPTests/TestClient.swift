import Dispatch
import Foundation
@testable import HubHTTP
import HubSync
#if canImport(Glibc)
import Glibc
#endif

struct ClientError: Error, CustomStringConvertible {
    let description: String
}

/// A response as a test client sees it.
struct ClientResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Runs blocking socket work on a thread of its own, so the cooperative pool stays free for the
/// server. Not on Dispatch's global queue: on two cores its few threads can all be taken by
/// other tests' blocking work, and a request then waited there past the server's timeouts.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.start()
    }
}

/// A blocking loopback client with a receive timeout; reads are buffered so pipelined responses parse.
final class TestClient: Sendable {
    let fd: Int32
    private let pending = Locked<[UInt8]>([])

    init(port: Int, host: String = "127.0.0.1", receiveTimeout: Double = 30) throws {
        let ipv6 = host.contains(":")
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket") }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - receiveTimeout.rounded(.down)) * 1_000_000))
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
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw ClientError(description: "connect errno \(errno)")
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends FIN (and stops reading) without closing the descriptor, as a client that leaves.
    func disconnect() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sets a small receive buffer (before reading nothing) so a non-reading client fills up fast.
    func shrinkReceiveBuffer() {
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw ClientError(description: "send errno \(errno)") }
            offset += count
        }
    }

    /// Reads once; nil on EOF or reset; throws on timeout.
    private func readMore() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            pending.withLock { $0.append(contentsOf: chunk[0..<count]) }
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw ClientError(description: "recv errno \(errno) (timeout?)")
    }

    private func take(_ count: Int) -> [UInt8] {
        pending.withLock { buffer in
            let taken = Array(buffer.prefix(count))
            buffer.removeFirst(min(count, buffer.count))
            return taken
        }
    }

    private func readLine() throws -> String {
        while true {
            let line: String? = pending.withLock { buffer in
                guard let index = buffer.firstIndex(of: 0x0A) else { return nil }
                let line = String(decoding: buffer[0..<index], as: UTF8.self)
                buffer.removeFirst(index + 1)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            if let line { return line }
            guard try readMore() else { throw ClientError(description: "closed while reading a line") }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while pending.withLock({ $0.count }) < count {
            guard try readMore() else { throw ClientError(description: "closed while reading content") }
        }
        return take(count)
    }

    /// Reads one response (interim 100 responses included as their own response).
    func readResponse(head: Bool = false) throws -> ClientResponse {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw ClientError(description: "bad status line \(statusLine)") }
        var headers = HTTPHeaders()
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw ClientError(description: "bad header \(line)") }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var response = ClientResponse(status: status, headers: headers, body: [])
        if head || status < 200 || status == 204 || status == 304 { return response }
        if headers["Transfer-Encoding"] == "chunked" {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine, radix: 16) else { throw ClientError(description: "bad chunk \(sizeLine)") }
                if size == 0 {
                    _ = try readLine()
                    return response
                }
                response.body += try readExactly(size)
                _ = try readExactly(2)
            }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads one line of a streamed chunked body: returns the next chunk's data.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine, radix: 16) else { throw ClientError(description: "bad chunk \(sizeLine)") }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        let data = try readExactly(size)
        _ = try readExactly(2)
        return data
    }

    /// Everything until the peer closes (or resets).
    func readToEnd() throws -> [UInt8] {
        while try readMore() {}
        return take(Int.max)
    }

    /// Whether the server closed the connection (EOF or reset) within the receive timeout,
    /// discarding any bytes that arrive first.
    func waitForClose() -> Bool {
        while true {
            do {
                if try !readMore() { return true }
                _ = take(Int.max)
            } catch {
                return false
            }
        }
    }
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(within seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(seconds)
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
