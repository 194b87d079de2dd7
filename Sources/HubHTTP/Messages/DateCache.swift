#if canImport(Glibc)
import Glibc
#endif
import HubSync

/// The `Date` header value (IMF-fixdate, RFC 9110 section 5.6.7), formatted once per second.
final class DateCache: Sendable {
    static let shared = DateCache()

    /// A copy per thread (each event loop reads it for every response): one shared lock made
    /// the loops contend; each stripe formats the date once a second.
    private let cached = Striped<(second: Int, bytes: [UInt8])> { (second: -1, bytes: []) }

    /// The current IMF-fixdate, for example `Sun, 06 Nov 1994 08:49:37 GMT`.
    var current: [UInt8] {
        let now = time(nil)
        return cached.current.withLock { cache in
            if cache.second != now {
                cache = (second: now, bytes: Self.format(now))
            }
            return cache.bytes
        }
    }

    static func format(_ seconds: Int) -> [UInt8] {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        return Array(text.utf8)
    }
}
