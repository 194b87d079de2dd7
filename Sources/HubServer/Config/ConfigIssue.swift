/// One problem in a configuration directory: which file, where in it, and what to do.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error
        case warning
    }

    /// Path of the file relative to the config directory, e.g. `features/home.json`.
    public let file: String
    /// JSON path inside the file, e.g. `$.operations[1].url`.
    public let path: String
    public let message: String
    public let severity: Severity

    public init(file: String, path: String, message: String, severity: Severity = .error) {
        self.file = file
        self.path = path
        self.message = message
        self.severity = severity
    }

    /// `features/home.json: $.operations[1].url: unknown placeholder {foo}`.
    public var description: String { "\(file): \(path): \(message)" }
}

/// A configuration that cannot be served: every error found, not only the first.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let issues: [ConfigIssue]

    public init(issues: [ConfigIssue]) {
        self.issues = issues
    }

    public var description: String {
        let errors = issues.filter { $0.severity == .error }
        return "configuration has \(errors.count) error(s):\n" + errors.map { "  " + $0.description }.joined(separator: "\n")
    }
}
