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
