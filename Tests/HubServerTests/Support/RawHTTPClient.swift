import Dispatch
import Foundation
import HubModel
#if canImport(Glibc)
import Glibc
#endif

/// A response read off a real socket.
struct HTTPResult: Sendable, CustomStringConvertible {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first value of `name` (case-insensitive).
    func header(_ name: String) -> String? { headerValues(name).first }

    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (HubModel's parser: ordered, Sendable).
    func json() throws -> JSONValue { try JSONParser().parse(body) }

    var description: String { "HTTP \(status) \(headers.map { "\($0.name): \($0.value)" }) \(text.prefix(600))" }
}

struct ClientError: Error, CustomStringConvertible {
    let description: String
}

/// Runs blocking socket code on a thread of its own: never on the cooperative pool nor on
/// Dispatch's global queues (both are as wide as the machine, 2 threads here, and the server
/// under test needs them).
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// A blocking, buffered reader over a connected socket, with a receive timeout.
final class SocketConnection: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closed = false

    init(port: Int, timeoutSeconds: Int = 15) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ClientError(description: "socket() failed: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            _ = Glibc.close(fd)
            throw ClientError(description: "connect to 127.0.0.1:\(port) failed: errno \(code)")
        }
        self.fd = fd
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(fd)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ClientError(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        guard count > 0 else {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK { throw ClientError(description: "read timed out") }
            if code == ECONNRESET { return false }
            throw ClientError(description: "recv failed: errno \(code)")
        }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// A line without its CRLF.
    func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw ClientError(description: "connection closed mid-line") }
        }
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ClientError(description: "connection closed with \(buffer.count)/\(count) bytes") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Status line and headers.
    func readHead() throws -> (status: Int, headers: [(name: String, value: String)]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw ClientError(description: "bad status line '\(statusLine)'")
        }
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw ClientError(description: "bad header line '\(line)'") }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        return (status, headers)
    }

    /// One chunk of a chunked body; nil for the last (zero) chunk.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        let sizeText = sizeLine.split(separator: ";").first.map(String.init) ?? ""
        guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
            throw ClientError(description: "bad chunk size '\(sizeLine)'")
        }
        if size == 0 {
            while try !readLine().isEmpty {}  // trailers
            return nil
        }
        let data = try readExactly(size)
        guard try readLine().isEmpty else { throw ClientError(description: "chunk not followed by CRLF") }
        return data
    }

    /// A whole response: Content-Length, chunked, or close-delimited.
    func readResponse(method: String) throws -> HTTPResult {
        let head = try readHead()
        let result = HTTPResult(status: head.status, headers: head.headers, body: [])
        if method == "HEAD" || head.status == 204 || head.status == 304 || (100..<200).contains(head.status) {
            return result
        }
        var body: [UInt8] = []
        if result.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            while let chunk = try readChunk() { body += chunk }
        } else if let length = result.header("Content-Length").flatMap({ Int($0) }) {
            body = try readExactly(length)
        } else {
            body = try readToEnd()
        }
        return HTTPResult(status: head.status, headers: head.headers, body: body)
    }
}

/// A tiny HTTP/1.1 client over loopback: one connection per request (`Connection: close`).
struct HubClient: Sendable {
    let port: Int

    static func requestBytes(
        method: String, target: String, headers: [(String, String)], body: [UInt8]?
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> HTTPResult {
        let port = self.port
        let bytes = Self.requestBytes(method: method, target: target, headers: headers, body: body)
        return try await blocking {
            let connection = try SocketConnection(port: port)
            defer { connection.close() }
            try connection.send(bytes)
            let result = try connection.readResponse(method: method)
            ViewRecorder.record(method: method, target: target, result: result)
            return result
        }
    }

    func get(_ target: String, headers: [(String, String)] = []) async throws -> HTTPResult {
        try await send("GET", target, headers: headers)
    }

    func delete(_ target: String) async throws -> HTTPResult {
        try await send("DELETE", target)
    }

    /// POST with a JSON body (`Content-Type: application/json` unless `contentType` says otherwise).
    func post(
        _ target: String, _ json: String, contentType: String? = "application/json", headers: [(String, String)] = []
    ) async throws -> HTTPResult {
        var all = headers
        if let contentType { all.append(("Content-Type", contentType)) }
        return try await send("POST", target, headers: all, body: Array(json.utf8))
    }

    /// `GET /view?uri=U`, the URI percent-encoded.
    func view(_ uri: String, headers: [(String, String)] = []) async throws -> HTTPResult {
        try await get("/view?uri=\(encode(uri))", headers: headers)
    }

    func session(_ session: String, headers: [(String, String)] = []) async throws -> HTTPResult {
        try await get("/view?session=\(encode(session))", headers: headers)
    }

    func action(_ fields: String, headers: [(String, String)] = []) async throws -> HTTPResult {
        try await post("/action", fields, headers: headers)
    }

    /// The value of one sample line of `/metrics` (`name` with its labels, if any).
    func metric(_ name: String) async throws -> Double? {
        let text = try await get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~:"))) ?? text
    }

    /// Opens `GET /view/events?session=S` and reads the response head.
    func events(session: String, lastEventID: String? = nil) async throws -> SSEStream {
        var headers: [(String, String)] = []
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        return try await events(target: "/view/events?session=\(encode(session))", headers: headers)
    }

    /// Opens `GET target` as an event stream with `headers` and reads the response head.
    func events(target: String, headers extra: [(String, String)]) async throws -> SSEStream {
        let port = self.port
        let headers = [("Accept", "text/event-stream")] + extra
        return try await blocking { [headers] in
            let connection = try SocketConnection(port: port)
            try connection.send(Self.requestBytes(method: "GET", target: target, headers: headers, body: nil))
            let head = try connection.readHead()
            return SSEStream(connection: connection, status: head.status, headers: head.headers)
        }
    }
}

/// A Server-Sent Events stream read incrementally (chunked transfer).
final class SSEStream: @unchecked Sendable {
    struct Event: Sendable {
        var event: String?
        var data: String
        var id: String?
    }

    let connection: SocketConnection
    let status: Int
    let headers: [(name: String, value: String)]
    private var pending = ""

    init(connection: SocketConnection, status: Int, headers: [(name: String, value: String)]) {
        self.connection = connection
        self.status = status
        self.headers = headers
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The next event (comments skipped); throws on timeout or end of stream.
    func next() async throws -> Event {
        try await blocking { try self.nextBlocking() }
    }

    private func nextBlocking() throws -> Event {
        while true {
            if let range = pending.range(of: "\n\n") {
                let block = String(pending[..<range.lowerBound])
                pending = String(pending[range.upperBound...])
                var event = Event(event: nil, data: "", id: nil)
                var dataLines: [String] = []
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") { continue }
                    let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                    let field = String(parts[0])
                    var value = parts.count > 1 ? String(parts[1]) : ""
                    if value.hasPrefix(" ") { value.removeFirst() }
                    switch field {
                    case "event": event.event = value
                    case "data": dataLines.append(value)
                    case "id": event.id = value
                    default: break
                    }
                }
                if event.event == nil && dataLines.isEmpty { continue }  // a comment block (heartbeat)
                event.data = dataLines.joined(separator: "\n")
                if event.event == "view" { ViewRecorder.recordEvent(event.data) }
                return event
            }
            guard let chunk = try connection.readChunk() else { throw ClientError(description: "event stream ended") }
            pending += String(decoding: chunk, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        }
    }

    func close() { connection.close() }
}
