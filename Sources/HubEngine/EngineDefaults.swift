#if canImport(Glibc)
import Glibc
#endif

/// The engine's defaults that more than one type reads (the rest sit on
/// ``ViewEngine/Configuration``'s initializer).
public enum EngineDefaults {
    /// How long a session token is accepted after it was issued: 7 days.
    public static let tokenMaxAge: Duration = .seconds(7 * 86_400)

    /// The system's wall clock in whole seconds since the Unix epoch (tokens must mean the same
    /// in every process, so they are stamped with wall time, not a monotonic clock).
    @Sendable public static func systemWallClock() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        return Int64(now.tv_sec)
    }
}
