/// The time sources a ``CurlUpstreamClient``'s cache decides freshness with: a monotonic
/// instant (when an entry stops being fresh, and whether it still is) and the wall clock in
/// whole seconds since the epoch (what `Date`, `Expires` and `Age` are compared with).
///
/// Production uses ``system``. Tests inject a fixed or stepped clock so that freshness is
/// computed exactly, however long a loaded machine takes between two requests.
public struct UpstreamClock: Sendable {
    /// The current monotonic instant.
    public var now: @Sendable () -> ContinuousClock.Instant
    /// The current wall-clock time, in whole seconds since 1970-01-01T00:00:00Z.
    public var wallSeconds: @Sendable () -> Int

    /// Creates a clock from its two time sources.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant, wallSeconds: @escaping @Sendable () -> Int) {
        self.now = now
        self.wallSeconds = wallSeconds
    }

    /// The real clocks: `ContinuousClock.now` and the system's wall clock.
    public static let system = UpstreamClock(now: { ContinuousClock.now }, wallSeconds: { HTTPDate.currentTime })
}
