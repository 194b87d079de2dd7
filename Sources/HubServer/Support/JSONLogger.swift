import Foundation
import HubModel
import HubSync

/// One JSON object per line on standard error (or plain text), at or above a level.
public final class JSONLogger: Sendable {
    public typealias Level = ServerSettings.LogLevel

    public let level: Level
    public let format: ServerSettings.LogFormat
    private let lock = Locked(())
    private let sink: @Sendable (String) -> Void

    public init(level: Level, format: ServerSettings.LogFormat = .json, sink: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.format = format
        self.sink = sink ?? { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    public func isEnabled(_ level: Level) -> Bool { level >= self.level }

    /// Logs `message` with string fields, in order.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard isEnabled(level) else { return }
        let line: String
        switch format {
        case .json:
            var object = JSONObject()
            object["ts"] = .string(Self.timestamp())
            object["level"] = .string(level.rawValue)
            object["msg"] = .string(message)
            for (key, value) in fields { object[key] = .string(value) }
            line = JSONValue.object(object).jsonString
        case .text:
            line = "\(Self.timestamp()) \(level.rawValue.uppercased()) \(message)"
                + fields.map { " \($0.key)=\($0.value)" }.joined()
        }
        lock.withLock { _ in sink(line) }
    }

    static func timestamp() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))  // UTC, e.g. 2026-11-21T08:12:42.221Z
    }
}
