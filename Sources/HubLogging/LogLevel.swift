/// How severe a log line is; a logger writes the lines at or above its level.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case debug, info, warning, error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// How a log line is written: one JSON object, or `text` (`timestamp LEVEL message key=value...`).
public enum LogFormat: String, Sendable, CaseIterable {
    case json, text
}
