import Foundation
import Glibc
import HubHTTP
import Synchronization

/// The one real HTTP/1.1 upstream of the tests and benchmarks: a listening socket on
/// 127.0.0.1:0, one blocking thread per connection, keep-alive, and a handler that decides each
/// answer, either as an ``Action`` (which can also misbehave: chunked, reset mid-body, close)
/// or through a HubHTTP ``Router`` (``init(_:)``). Every request is kept in ``log``; accepted
/// connections, requests and the most requests at once are counted, so tests can check reuse
/// and coalescing. Not part of any product.
public final class TestUpstream: Sendable {
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

    /// Decides the answer to each request, on the connection's thread.
    public typealias Handler = @Sendable (Request) -> Action

    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Every request received, in arrival order.
    public let log = UpstreamLog()
    private let listenFD: Int32
    private let handler: Handler
    private let openFDs = OpenDescriptors()
    private let stopped = Atomic<Bool>(false)
    private let accepted = Atomic<Int>(0)
    private let requests = Atomic<Int>(0)
    private let concurrent = Atomic<Int>(0)
    private let maxConcurrent = Atomic<Int>(0)

    /// Connections accepted so far.
    public var acceptedConnections: Int { accepted.load(ordering: .sequentiallyConsistent) }
    /// Requests answered (or started) so far.
    public var requestCount: Int { requests.load(ordering: .sequentiallyConsistent) }
    /// The paths (without query) received so far, in arrival order.
    public var receivedPaths: [String] { log.all.map(\.path) }
    /// The most requests being handled at the same time.
    public var maxConcurrentRequests: Int { maxConcurrent.load(ordering: .sequentiallyConsistent) }

    /// `http://127.0.0.1:PORT`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// `http://127.0.0.1:PORT` followed by `path`.
    public func url(_ path: String) -> String { base + path }

    /// Starts listening; `handler` answers every request, on the connection's thread.
    public init(handler: @escaping Handler) throws {
        self.handler = handler
        let (fd, address) = try bindLoopbackSocket(listening: 128)
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Listens on `refusing`'s port (made with `RefusingPort(shared: true)`): while this upstream
    /// runs it answers there; once it stops, the port refuses again.
    public init(sharing refusing: RefusingPort, handler: @escaping Handler) throws {
        self.handler = handler
        let (fd, address) = try bindLoopbackSocket(listening: 128, port: refusing.port, sharingPort: true)
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
        while let request = Self.readRequest(fd, &buffer) {
            requests.add(1, ordering: .sequentiallyConsistent)
            log.append(request)
            let now = concurrent.add(1, ordering: .sequentiallyConsistent).newValue
            var seen = maxConcurrent.load(ordering: .sequentiallyConsistent)
            while now > seen, !maxConcurrent.compareExchange(expected: seen, desired: now, ordering: .sequentiallyConsistent).exchanged {
                seen = maxConcurrent.load(ordering: .sequentiallyConsistent)
            }
            let keepGoing = answer(handler(request), to: request, on: fd)
            concurrent.subtract(1, ordering: .sequentiallyConsistent)
            if !keepGoing || request.header("connection")?.lowercased() == "close" { return }
        }
    }

    /// Writes the answer; returns false when the connection must end.
    private func answer(_ action: Action, to request: Request, on fd: Int32) -> Bool {
        switch action {
        case .respond(let status, let headers, let body, let delay):
            if !sleep(delay) { return false }
            let noBody = status == 304 || status == 204 || request.method == "HEAD"
            var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            return Self.write(fd, Array((head + "\r\n").utf8) + (noBody ? [] : body))
        case .chunked(let headers, let chunks):
            var head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            guard Self.write(fd, Array((head + "\r\n").utf8)) else { return false }
            for chunk in chunks {
                guard Self.write(fd, Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)) else {
                    return false
                }
            }
            return Self.write(fd, Array("0\r\n\r\n".utf8))
        case .resetMidBody(let declaredLength, let partial):
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(declaredLength)\r\n\r\n"
            _ = Self.write(fd, Array(head.utf8) + partial)
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
}

/// Starts an upstream answered by `configure`'s router, runs `body`, always stops it.
@discardableResult
public func withUpstream<T>(
    _ configure: (inout Router) -> Void, _ body: (TestUpstream) async throws -> T
) async throws -> T {
    let upstream = try TestUpstream(configure)
    defer { upstream.stop() }
    return try await body(upstream)
}
