import Foundation
import Glibc
import Synchronization

/// A small real HTTP/1.1 upstream for tests and benchmarks: a listening socket on
/// 127.0.0.1:0, one blocking thread per connection, keep-alive, and a handler closure that
/// decides each answer. It counts accepted connections and requests so tests can check reuse
/// and coalescing. Not part of any product: only HubUpstreamTests and HubUpstreamBenchmarks use it.
public final class TestUpstream: Sendable {
    /// One parsed request.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// How the upstream answers.
    public enum Action: Sendable {
        /// A Content-Length framed response, sent after `delay`.
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], delay: Duration = .zero)
        /// A chunked response (no Content-Length), one chunk per element.
        case chunked(headers: [(String, String)] = [], chunks: [[UInt8]])
        /// Headers declaring `declaredLength` bytes, `partial` of them, then an RST (SO_LINGER 0).
        case resetMidBody(declaredLength: Int, partial: [UInt8])
        /// Close the connection without answering.
        case close
    }

    public typealias Handler = @Sendable (Request) -> Action

    public let port: Int
    private let listenFD: Int32
    private let handler: Handler
    private let openFDs = OpenDescriptors()
    private let paths = RecordedPaths()
    private let stopped = Atomic<Bool>(false)
    private let accepted = Atomic<Int>(0)
    private let requests = Atomic<Int>(0)
    private let concurrent = Atomic<Int>(0)
    private let maxConcurrent = Atomic<Int>(0)

    /// Connections accepted so far.
    public var acceptedConnections: Int { accepted.load(ordering: .sequentiallyConsistent) }
    /// Requests answered (or started) so far.
    public var requestCount: Int { requests.load(ordering: .sequentiallyConsistent) }
    /// The request targets received so far, in arrival order.
    public var receivedPaths: [String] { paths.all }
    /// The most requests being handled at the same time.
    public var maxConcurrentRequests: Int { maxConcurrent.load(ordering: .sequentiallyConsistent) }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public init(handler: @escaping Handler) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Closes the listener and breaks every open connection.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
        openFDs.shutdownAll()
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                break
            }
            accepted.add(1, ordering: .sequentiallyConsistent)
            openFDs.insert(fd)
            let thread = Thread { [self] in serve(fd) }
            thread.start()
        }
        close(listenFD)
    }

    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        defer {
            openFDs.remove(fd)
            close(fd)
        }
        while let request = readRequest(fd, &buffer) {
            requests.add(1, ordering: .sequentiallyConsistent)
            paths.append(request.path)
            let now = concurrent.add(1, ordering: .sequentiallyConsistent).newValue
            var seen = maxConcurrent.load(ordering: .sequentiallyConsistent)
            while now > seen, !maxConcurrent.compareExchange(expected: seen, desired: now, ordering: .sequentiallyConsistent).exchanged {
                seen = maxConcurrent.load(ordering: .sequentiallyConsistent)
            }
            let keepGoing = answer(handler(request), on: fd)
            concurrent.subtract(1, ordering: .sequentiallyConsistent)
            if !keepGoing || request.header("connection")?.lowercased() == "close" { return }
        }
    }

    /// Writes the answer; returns false when the connection must end.
    private func answer(_ action: Action, on fd: Int32) -> Bool {
        switch action {
        case .respond(let status, let headers, let body, let delay):
            if !sleep(delay) { return false }
            var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            return write(fd, Array((head + "\r\n").utf8) + (status == 304 ? [] : body))
        case .chunked(let headers, let chunks):
            var head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            guard write(fd, Array((head + "\r\n").utf8)) else { return false }
            for chunk in chunks {
                guard write(fd, Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)) else {
                    return false
                }
            }
            return write(fd, Array("0\r\n\r\n".utf8))
        case .resetMidBody(let declaredLength, let partial):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(declaredLength)\r\n\r\n"
            _ = write(fd, Array(head.utf8) + partial)
            usleep(50_000)
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            return false
        case .close:
            return false
        }
    }

    /// Sleeps `duration` in small steps; false when the server stopped meanwhile.
    private func sleep(_ duration: Duration) -> Bool {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            if stopped.load(ordering: .sequentiallyConsistent) { return false }
            usleep(5_000)
        }
        return true
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Reads one request (headers, then a Content-Length body); nil at end of stream.
    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while true {
            if let end = buffer.firstRange(of: terminator)?.upperBound { headerEnd = end; break }
            guard receive(fd, &buffer) else { return nil }
        }
        guard let headerEnd else { return nil }
        let text = String(decoding: buffer[..<(headerEnd - 4)], as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
        while buffer.count < headerEnd + length {
            guard receive(fd, &buffer) else { return nil }
        }
        let body = Array(buffer[headerEnd..<(headerEnd + length)])
        buffer.removeFirst(headerEnd + length)
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }

    private func receive(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
    }
}

/// The connection descriptors a ``TestUpstream`` may have to break on `stop()`.
///
/// Guarded by an `NSLock` rather than `Synchronization.Mutex`: `stop()` holds the lock across
/// syscalls, so contention takes Mutex's kernel (FUTEX_LOCK_PI) path, whose hand-over
/// ThreadSanitizer cannot see, and TSan reports false races. pthread mutexes are intercepted.
/// `@unchecked Sendable`: `fds` is only touched with `lock` held.
final class OpenDescriptors: @unchecked Sendable {
    private let lock = NSLock()
    private var fds = Set<Int32>()

    func insert(_ fd: Int32) { lock.withLock { _ = fds.insert(fd) } }

    /// Removes `fd` before its owner closes it, so `shutdownAll` never touches a reused number.
    func remove(_ fd: Int32) { lock.withLock { _ = fds.remove(fd) } }

    func shutdownAll() { lock.withLock { for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) } } }
}

/// Request targets seen by a ``TestUpstream`` (`NSLock`, like ``OpenDescriptors``).
/// `@unchecked Sendable`: `paths` is only touched with `lock` held.
final class RecordedPaths: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: [String] = []

    func append(_ path: String) { lock.withLock { paths.append(path) } }
    var all: [String] { lock.withLock { paths } }
}

/// A listener whose accept queue is full and never drained: new connections hang in the handshake
/// (Linux drops their SYNs), which is how a connect timeout looks on loopback.
public final class FullBacklogListener {
    public let port: Int
    private var fds: [Int32] = []

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 0) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
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
