/// A token bucket's settings (`{"perSecond": 20, "burst": 100}`): `burst` requests at once,
/// then `perSecond` a second.
public struct RateLimit: Sendable, Equatable {
    public var perSecond: Double
    public var burst: Int

    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Seconds a refused client waits for one token (at least 1: `Retry-After` is whole seconds).
    package var retryAfterSeconds: Int {
        max(1, Int((1 / perSecond).rounded(.up)))
    }
}
