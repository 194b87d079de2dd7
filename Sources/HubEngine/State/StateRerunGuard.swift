/// Notices a session whose chain state changes re-run too often: more than
/// ``maximumPerSecond`` re-runs within a second is a loop (two sessions whose operations write
/// what the other reads, say), not users acting. The session then stops re-running for state
/// changes for ``pause``; its own requests and actions still run its chain, and the first change
/// after the pause re-runs it, so its view catches up. Confined to its session's actor.
struct StateRerunGuard {
    /// Re-runs from state changes one session may make in a second.
    static let maximumPerSecond = 50
    /// How long a session that passed it stops re-running for state changes.
    static let pause = Duration.seconds(10)

    private var windowStart: ContinuousClock.Instant
    private var count = 0
    private var pausedUntil: ContinuousClock.Instant?

    init(now: ContinuousClock.Instant) {
        windowStart = now
    }

    /// What to do with one more re-run at `now`.
    enum Verdict: Equatable {
        case run
        /// The re-run that passed the rate: report the loop, skip the re-run.
        case loopDetected
        /// Paused after a loop: skip the re-run.
        case paused
    }

    mutating func admit(now: ContinuousClock.Instant) -> Verdict {
        if let pausedUntil {
            guard now >= pausedUntil else { return .paused }
            self.pausedUntil = nil
            windowStart = now
            count = 0
        }
        if now - windowStart >= .seconds(1) {
            windowStart = now
            count = 0
        }
        count += 1
        guard count > Self.maximumPerSecond else { return .run }
        pausedUntil = now + Self.pause
        return .loopDetected
    }
}

/// A session whose state changes re-ran its chain in a loop (``StateRerunGuard``): which
/// feature, and the operation that read the changing key first.
public struct StateRerunLoop: Sendable {
    public let featureIdentifier: String
    public let operationName: String
    /// The key whose changes kept re-running the chain (its description, no value).
    public let key: String
}
