import HubSync

/// Lets a content operation say that what it added is older than its source promises: the last
/// good content of an upstream that failed or is being refreshed. The chain records it in the
/// operation's ``OperationTiming/staleAgeSeconds``, and the server tells the client.
public enum StaleContent {
    /// Where the running operation's report goes (set by the chain around each operation).
    final class Report: Sendable {
        private let age = Locked<Int?>(nil)

        /// The oldest age reported during the run.
        var ageSeconds: Int? { age.withLock { $0 } }

        func record(_ seconds: Int) {
            age.withLock { $0 = max($0 ?? 0, max(0, seconds)) }
        }
    }

    @TaskLocal static var current: Report?

    /// Marks the content the calling operation is adding as stale, `ageSeconds` old. Call it
    /// from `perform` or `appendContent` (the task the chain runs them in) of an operation that
    /// does not complete synchronously; elsewhere it does nothing.
    public static func report(ageSeconds: Int) {
        current?.record(ageSeconds)
    }
}
