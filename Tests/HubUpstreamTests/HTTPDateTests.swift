import Foundation
@testable import HubUpstream
import Testing

/// The hand-written HTTP-date parser: the three formats of RFC 9110 5.6.7, ranges, garbage.
@Suite struct HTTPDateTests {
    /// 2026-11-21T00:00:00Z, for the RFC 850 century rule.
    static let now = 1_795_219_200
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    static let example = 784_111_777

    @Test func theThreeFormatsOfTheRFCExample() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Self.now) == Self.example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.now) == Self.example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: Self.now) == Self.example)
        // Tolerated asctime day spellings, and surrounding whitespace.
        #expect(HTTPDate.parse("Sun Nov 06 08:49:37 1994", now: Self.now) == Self.example)
        #expect(HTTPDate.parse("Sun Nov 6 08:49:37 1994", now: Self.now) == Self.example)
        #expect(HTTPDate.parse(" \tSun, 06 Nov 1994 08:49:37 GMT  ", now: Self.now) == Self.example)
        // A Substring works too.
        let header = "Expires: Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(HTTPDate.parse(header.dropFirst(9), now: Self.now) == Self.example)
    }

    @Test func boundariesAndCalendar() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT", now: Self.now) == 0)
        #expect(HTTPDate.parse("Wed, 31 Dec 1969 23:59:59 GMT", now: Self.now) == -1)
        #expect(HTTPDate.parse("Tue, 19 Jan 2038 03:14:08 GMT", now: Self.now) == 2_147_483_648)
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now) == 253_402_300_799)
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT", now: Self.now) == 1_709_208_000)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT", now: Self.now) == 951_782_400)
        #expect(HTTPDate.parse("Sat, 21 Nov 2026 00:00:00 GMT", now: Self.now) == Self.now)
        // A leap second is in the grammar; it lands on the next second.
        #expect(HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT", now: Self.now) == 1_483_228_800)
    }

    @Test func rfc850TwoDigitYears() {
        // At most 50 years ahead in the current century, else the century before.
        #expect(HTTPDate.parse("Thursday, 01-Jan-76 00:00:00 GMT", now: Self.now) == HTTPDate.timestamp(year: 2076, month: 1, day: 1, hour: 0, minute: 0, second: 0))
        #expect(HTTPDate.parse("Friday, 01-Jan-77 00:00:00 GMT", now: Self.now) == HTTPDate.timestamp(year: 1977, month: 1, day: 1, hour: 0, minute: 0, second: 0))
        #expect(HTTPDate.parse("Sunday, 01-Nov-26 00:00:00 GMT", now: Self.now) == HTTPDate.timestamp(year: 2026, month: 11, day: 1, hour: 0, minute: 0, second: 0))
        #expect(HTTPDate.parse("Saturday, 01-Jan-00 00:00:00 GMT", now: Self.now) == 946_684_800)
        // Judged against `now`: in 1990, "94" is 1994.
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: 631_152_000) == Self.example)
    }

    @Test func agreesWithFoundation() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let seconds = Int.random(in: -2_208_988_800...4_102_444_800, using: &generator)  // 1900...2100
            let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(HTTPDate.parse(text, now: Self.now) == seconds, "\(text)")
        }
    }

    @Test(arguments: [
        "", "0", "-1", "1", "yesterday", "GMT", "Sun,",
        "Sun, 06 Nov 1994 08:49:37 UTC",  // only GMT
        "Sun, 06 Nov 1994 08:49:37",  // zone missing
        "Sun, 06 Nov 1994 08:49:37 GMT x",  // trailing garbage
        "Sun, 06 Nov 1994 08:49:37 GMTGMT",
        "sun, 06 nov 1994 08:49:37 gmt",  // case-sensitive
        "Sun, 6 Nov 1994 08:49:37 GMT",  // IMF day is two digits
        "Sun, 06 Nov 94 08:49:37 GMT",  // IMF year is four digits
        "Sun, 06 November 1994 08:49:37 GMT",
        "Sun,06 Nov 1994 08:49:37 GMT",
        "Sun, 06  Nov 1994 08:49:37 GMT",
        "Snd, 06 Nov 1994 08:49:37 GMT",  // not a day name
        "Sunday, 06 Nov 1994 08:49:37 GMT",  // long day name with IMF layout
        "Sun, 06-Nov-94 08:49:37 GMT",  // short day name with RFC 850 layout
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994 GMT",
        "Sun Nov 116 08:49:37 1994",
        "Sun Nov   6 08:49:37 1994",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT",  // day out of range
        "Sun, 29 Feb 2023 08:49:37 GMT", "Sun, 29 Feb 1900 08:49:37 GMT",  // not leap years
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08-49-37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{0}", "Sun, 06 Nov １９９４ 08:49:37 GMT",
    ])
    func garbageIsNil(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil)
    }
}
