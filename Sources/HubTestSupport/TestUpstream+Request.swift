import Foundation
import Glibc
import HubHTTP
import HubPrimitives

extension TestUpstream {
    /// One request the upstream received.
    public struct Request: Sendable {
        /// The method token, for example `GET`.
        public var method: String
        /// The request target exactly as sent (path and query, still percent-encoded).
        public var target: String
        /// The target's path, percent-decoded, without the query.
        public var path: String
        /// The query parameters in order, percent-decoded.
        public var query: [(name: String, value: String)]
        /// The header fields in the order received.
        public var headers: [(name: String, value: String)]
        /// The content (Content-Length framed).
        public var body: [UInt8]

        /// The first value of the header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The first value of the query parameter `name`.
        public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

        /// The same request as HubHTTP parses it (for a ``Router``).
        var httpRequest: HTTPRequest {
            HTTPRequest(
                method: HTTPMethod(method), target: target, path: path, query: query,
                headers: HTTPHeaders(headers.map { (name: $0.name, value: $0.value) }), body: body)
        }
    }

    /// Reads one request (head, then a Content-Length body, answering `Expect: 100-continue`);
    /// nil at end of stream.
    static func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while true {
            if let end = buffer.firstRange(of: terminator)?.upperBound { headerEnd = end; break }
            guard receive(fd, &buffer) else { return nil }
        }
        guard let headerEnd else { return nil }
        let text = String(decoding: buffer[..<(headerEnd - 4)], as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...].trimmingOWS())))
        }
        let length = Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
        let expects = headers.contains { $0.name.lowercased() == "expect" && $0.value.lowercased() == "100-continue" }
        if expects, length > 0, buffer.count < headerEnd + length {
            guard write(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
        }
        while buffer.count < headerEnd + length {
            guard receive(fd, &buffer) else { return nil }
        }
        let body = Array(buffer[headerEnd..<(headerEnd + length)])
        buffer.removeFirst(headerEnd + length)
        let target = String(requestLine[1])
        let parsed = HTTPRequest(method: HTTPMethod(String(requestLine[0])), target: target)
        return Request(
            method: String(requestLine[0]), target: target, path: parsed.path, query: parsed.query, headers: headers, body: body)
    }

    private static func receive(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
