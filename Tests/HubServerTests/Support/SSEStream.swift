import Foundation
import HubHTTP
import HubSync
import HubTestSupport

/// A Server-Sent Events stream read incrementally (chunked transfer) off a real socket.
final class SSEStream: Sendable {
    struct Event: Sendable {
        var event: String?
        var data: String
        var id: String?
    }

    let connection: LoopbackClient
    let status: Int
    let headers: HTTPHeaders
    /// Text received and not yet returned as an event.
    private let pending = Locked("")

    init(connection: LoopbackClient, status: Int, headers: HTTPHeaders) {
        self.connection = connection
        self.status = status
        self.headers = headers
    }

    func header(_ name: String) -> String? { headers[name] }

    /// The next event (comments skipped); throws on timeout or end of stream.
    func next() async throws -> Event {
        try await blocking { try self.nextBlocking() }
    }

    private func nextBlocking() throws -> Event {
        while true {
            if let event = pending.withLock({ Self.takeEvent(&$0) }) {
                if event.event == "view" { ViewRecorder.recordEvent(event.data) }
                if event.event == "patch" { ViewRecorder.recordEvent(event.data, patch: true) }
                return event
            }
            guard let chunk = try connection.readChunk() else { throw HarnessError("event stream ended") }
            let text = String(decoding: chunk, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            pending.withLock { $0 += text }
        }
    }

    /// Removes the first complete event from `pending`, skipping comment blocks (heartbeats).
    private static func takeEvent(_ pending: inout String) -> Event? {
        while let range = pending.range(of: "\n\n") {
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
            return event
        }
        return nil
    }

    func close() { connection.close() }
}
