import HubSync
import HubUpstream

/// An ``UpstreamClock`` the test moves by hand: upstream freshness and stale windows are
/// measured with it, so "61 seconds later" is one call, however long the machine takes.
final class SteppedUpstreamClock: Sendable {
    private let start = ContinuousClock.now
    private let offset = Locked<Duration>(.zero)

    /// The clock to give the hub (`withHub(..., upstreamClock:)`).
    var clock: UpstreamClock {
        UpstreamClock(
            now: { [self] in start.advanced(by: offset.withLock { $0 }) },
            wallSeconds: { [self] in 1_800_000_000 + Int(offset.withLock { $0 }.components.seconds) })
    }

    func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
}
