import HubLogging
import HubEngine
import HubSync

/// Where the text of a state store's `unavailable` error goes: the log, at error level, with
/// the backend and the operation. It names what the driver said (the database's host, port,
/// role, its message), which no client sees: problem bodies and `/ready` say only "the state
/// store is unavailable" (``ProblemMapping/stateUnavailableDetail``). At most one line a second
/// while the store stays down; each line counts the errors left out since the last
/// (`"suppressed"`).
final class StateUnavailableLog: Sendable {
    private let logger: JSONLogger
    /// When the last line was written, and the errors left out since.
    private let last = Locked<(at: ContinuousClock.Instant?, suppressed: Int)>((nil, 0))

    init(logger: JSONLogger) {
        self.logger = logger
    }

    /// Logs `error` (an `unavailable` one) of `operation` on `backend`, unless a line was
    /// written less than a second ago.
    func record(_ error: StateError, backend: String, operation: String) {
        guard logger.isEnabled(.error) else { return }
        let now = ContinuousClock.now
        let suppressed: Int? = last.withLock { last in
            if let at = last.at, now - at < .seconds(1) {
                last.suppressed += 1
                return nil
            }
            let suppressed = last.suppressed
            last = (now, 0)
            return suppressed
        }
        guard let suppressed else { return }
        logger.log(
            .error, "state store unavailable",
            ["backend": .string(backend), "op": .string(operation), "error": .string(error.detail), "suppressed": .int(suppressed)])
    }
}
