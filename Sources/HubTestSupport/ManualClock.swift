import Foundation
import HubSync
import HubUpstream

/// The one clock tests move by hand: a monotonic instant and a wall-clock time that advance
/// together, only when the test says so, so "61 seconds later" is one call however slow the
/// machine is. Hand it to what is measured in the shape that takes it: ``upstreamClock`` (the
/// upstream cache, stale content, the hub's `upstreamClock`), ``dateFunction`` (token
/// verification), ``instantFunction`` (anything timing on a `ContinuousClock`).
public final class ManualClock: Sendable {
    private let start: ContinuousClock.Instant
    private let wallStart: Double
    private let offset = Locked<Duration>(.zero)

    /// A clock at `start` (monotonic) and `wallSeconds` since the epoch (wall clock).
    public init(wallSeconds: Double = 1_800_000_000, start: ContinuousClock.Instant = .now) {
        self.start = start
        self.wallStart = wallSeconds
    }

    /// Time moved so far.
    public var elapsed: Duration { offset.withLock { $0 } }
    /// The monotonic instant now.
    public var instant: ContinuousClock.Instant { start.advanced(by: elapsed) }
    /// Seconds since the epoch now (fractions included).
    public var wallSeconds: Double {
        let moved = elapsed.components
        return wallStart + Double(moved.seconds) + Double(moved.attoseconds) / 1e18
    }
    /// The wall-clock time now.
    public var date: Date { Date(timeIntervalSince1970: wallSeconds) }

    /// Moves both clocks forward by `duration`.
    public func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
    /// Moves both clocks forward by `seconds`.
    public func advance(seconds: Double) { advance(.nanoseconds(Int64((seconds * 1e9).rounded()))) }

    /// This clock as the upstream client's (monotonic instant and whole wall seconds).
    public var upstreamClock: UpstreamClock {
        UpstreamClock(now: { [self] in instant }, wallSeconds: { [self] in Int(wallSeconds.rounded(.down)) })
    }
    /// This clock's wall time as a function.
    public var dateFunction: @Sendable () -> Date { { [self] in date } }
    /// This clock's monotonic instant as a function.
    public var instantFunction: @Sendable () -> ContinuousClock.Instant { { [self] in instant } }
}
