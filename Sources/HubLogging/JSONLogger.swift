import Foundation
import HubModel

/// One JSON object per line on standard error (or a `text` line), at or above a level.
///
/// Lines go through a ``StandardErrorWriter``: logging never blocks the caller on the log
/// pipe and never ends the process when the pipe is closed; lines that cannot be written are
/// dropped and counted (`hub_log_lines_dropped_total`).
public final class JSONLogger: Sendable {
    public typealias Level = LogLevel

    public let level: Level
    public let format: LogFormat
    private let sink: @Sendable (String) -> Void
    private let writer: StandardErrorWriter?

    /// A logger writing to standard error, or to `sink` (called on the logging thread; tests).
    public init(level: Level, format: LogFormat = .json, sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.format = format
        if let sink {
            self.sink = sink
            self.writer = nil
        } else {
            let writer = StandardErrorWriter.standardError
            self.sink = { writer.write($0) }
            self.writer = writer
        }
    }

    /// Lines lost to a full queue or a failed write (0 with a custom sink).
    public var droppedLines: Int { writer?.droppedLines ?? 0 }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    /// Logs `message` with fields, in order.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        guard isEnabled(level) else { return }
        sink(line(level, message, fields))
    }

    /// Waits briefly until queued lines are written (before the process exits).
    public func flush() {
        writer?.flush()
    }

    public func line(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, LogValue>) -> String {
        switch format {
        case .json:
            var object = JSONObject()
            object["ts"] = .string(Self.timestamp())
            object["level"] = .string(level.rawValue)
            object["msg"] = .string(message)
            for (key, value) in fields { object[key] = value.json }
            return JSONValue.object(object).jsonString
        case .text:
            var line = "\(Self.timestamp()) \(level.rawValue.uppercased()) \(message)"
            for (key, value) in fields { line += " \(key)=\(value.text)" }
            return line
        }
    }

    public static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))  // UTC, e.g. 2026-11-21T08:12:42.221Z
    }
}
