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
