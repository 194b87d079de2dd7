/// An environment variable HubServer reads: its name and what it does, as `hub-server serve
/// --help` and docs/CONFIG.md list them.
public struct EnvironmentVariable: Sendable, Equatable {
    /// The variable's name (`HUB_PORT`).
    public let name: String
    /// One line: the values it takes and what it overrides.
    public let summary: String

    public init(_ name: String, _ summary: String) {
        self.name = name
        self.summary = summary
    }

    /// Every variable the server reads, in the order `--help` lists them. A new one is one more
    /// line here (a test fails while the sources read a `HUB_` name this list lacks); keep each
    /// line of ``helpText`` within 80 columns, as `--help` prints it.
    public static let all: [EnvironmentVariable] = [
        EnvironmentVariable("HUB_CONFIG", "config directory when none is named (default ./Config)"),
        EnvironmentVariable("HUB_HOST", "listen address, over server.json \"host\""),
        EnvironmentVariable("HUB_PORT", "listen port, over server.json \"port\" (0: a free port)"),
        EnvironmentVariable("HUB_LOG_LEVEL", "debug|info|warning|error, over server.json log.level"),
        EnvironmentVariable("HUB_LOG_FORMAT", "json|text, over server.json log.format"),
        EnvironmentVariable("HUB_CONFIG_WATCH", "1|0: watch the config directory, over reload.watch"),
        EnvironmentVariable("HUB_SESSION_KEYS", "session-signing keys, comma-separated, first signs"),
        EnvironmentVariable("HUB_DATA_DIR", "data directory (key, SQLite state), over dataDirectory"),
        EnvironmentVariable("HUB_BODY_FILE_DIR", "a disk directory for large bodies' files (default: memory)"),
        EnvironmentVariable("HUB_STATE_BACKEND", "memory|sqlite|postgres: state store, over state.backend"),
        EnvironmentVariable("HUB_STATE_URL", "PostgreSQL URL of the state store, over state.url"),
        EnvironmentVariable("HUB_INVALIDATION_SECRETS", "POST /invalidate signing secrets, comma-separated"),
    ]

    /// ``all`` as an indented two-column list, one variable a line.
    public static var helpText: String {
        // Aligned on names up to 18 characters; a longer one (HUB_INVALIDATION_SECRETS) takes two
        // spaces, so that no line passes 80 columns.
        let width = all.map(\.name.count).filter { $0 <= 18 }.max() ?? 0
        return all.map { "  " + $0.name + String(repeating: " ", count: max(2, width - $0.name.count + 2)) + $0.summary }
            .joined(separator: "\n")
    }
}
