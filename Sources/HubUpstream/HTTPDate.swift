import Foundation

/// HTTP-date parsing (RFC 9110 section 5.6.7) for `Date` and `Expires`, without `DateFormatter`:
/// a hand-written scanner over the UTF-8 bytes, allocation-free, that accepts exactly the three
/// formats a recipient must understand:
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
/// - obsolete asctime: `Sun Nov  6 08:49:37 1994` (a single-digit day may also follow one space)
///
/// Names are case-sensitive, as the grammar says. The day name must be a real one but is not
/// checked against the date; day, hour, minute and second are range-checked (second 60, a leap
/// second, is accepted). Leading and trailing spaces and tabs are ignored. Anything else,
/// including `0` in `Expires`, is nil: the caller decides what an invalid date means.
enum HTTPDate {
    /// Seconds since 1970-01-01T00:00:00Z of the date in `text`, or nil when `text` is not an HTTP-date.
    ///
    /// `now` (seconds since the epoch) only resolves an RFC 850 two-digit year: the year in the
    /// current century, or the one a century earlier when that would be more than 50 years ahead.
    static func parse(_ text: some StringProtocol, now: Int) -> Int? {
        if let date = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0, now: now) }) { return date }
        var copy = String(text)  // a bridged or otherwise non-contiguous string
        return copy.withUTF8 { parse(bytes: $0, now: now) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>, now: Int) -> Int? {
        var scanner = Scanner(bytes: bytes)
        return scanner.parseDate(now: now)
    }

    /// The wall clock, in whole seconds since the epoch (rounded down).
    static var currentTime: Int {
        Int(Date().timeIntervalSince1970.rounded(.down))
    }

    /// Seconds since the epoch of a UTC calendar date and time (proleptic Gregorian), no range checks.
    static func timestamp(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
        daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian year containing the day `days` since 1970-01-01 (`civil_from_days`).
    fileprivate static func civilYear(ofDay days: Int) -> Int {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 = March
        return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    }

    fileprivate static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    fileprivate static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    fileprivate static let shortDayNames: [StaticString] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    fileprivate static let longDayNames: [StaticString] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    fileprivate static let monthNames: [StaticString] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}

/// A cursor over the bytes of one header value.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var end: Int

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        end = bytes.count
        while index < end, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        while end > index, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
    }

    /// Dispatches on what follows the day name: `,` after a short name is IMF-fixdate, after a
    /// long name RFC 850; a space after a short name is asctime.
    mutating func parseDate(now: Int) -> Int? {
        let nameStart = index
        while index < end, isLetter(bytes[index]) { index += 1 }
        let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<index])
        if name.count == 3, HTTPDate.shortDayNames.contains(where: { equals(name, $0) }) {
            if consume(","), consume(" ") { return parseIMFFixdate() }
            if consume(" ") { return parseAsctime() }
            return nil
        }
        if name.count > 3, HTTPDate.longDayNames.contains(where: { equals(name, $0) }), consume(","), consume(" ") {
            return parseRFC850(now: now)
        }
        return nil
    }

    /// `06 Nov 1994 08:49:37 GMT`
    private mutating func parseIMFFixdate() -> Int? {
        guard let day = digits(2), consume(" "), let month = month(), consume(" "),
              let year = digits(4), consume(" "), let time = time(), consume(" "), consume("GMT"), index == end
        else { return nil }
        return validated(year: year, month: month, day: day, time: time)
    }

    /// `06-Nov-94 08:49:37 GMT`
    private mutating func parseRFC850(now: Int) -> Int? {
        guard let day = digits(2), consume("-"), let month = month(), consume("-"),
              let twoDigits = digits(2), consume(" "), let time = time(), consume(" "), consume("GMT"), index == end
        else { return nil }
        let currentYear = HTTPDate.civilYear(ofDay: now.floorDivided(by: 86_400))
        let century = currentYear - currentYear.floorModulo(100)
        var year = century + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return validated(year: year, month: month, day: day, time: time)
    }

    /// `Nov  6 08:49:37 1994` (also `Nov 06` and `Nov 6`)
    private mutating func parseAsctime() -> Int? {
        guard let month = month(), consume(" ") else { return nil }
        let day: Int
        if consume(" ") {
            guard let digit = digits(1) else { return nil }
            day = digit
        } else if let twoDigits = digits(2) {
            day = twoDigits
        } else if let digit = digits(1) {
            day = digit
        } else {
            return nil
        }
        guard consume(" "), let time = time(), consume(" "), let year = digits(4), index == end else { return nil }
        return validated(year: year, month: month, day: day, time: time)
    }

    private func validated(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Int? {
        guard (1...HTTPDate.daysIn(month: month, year: year)).contains(day),
              time.hour < 24, time.minute < 60, time.second <= 60
        else { return nil }
        return HTTPDate.timestamp(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
    }

    /// `HH:MM:SS`
    private mutating func time() -> (hour: Int, minute: Int, second: Int)? {
        guard let hour = digits(2), consume(":"), let minute = digits(2), consume(":"), let second = digits(2) else {
            return nil
        }
        return (hour, minute, second)
    }

    /// A three-letter month name, 1-based.
    private mutating func month() -> Int? {
        guard end - index >= 3 else { return nil }
        let name = UnsafeBufferPointer(rebasing: bytes[index..<(index + 3)])
        guard let month = HTTPDate.monthNames.firstIndex(where: { equals(name, $0) }) else { return nil }
        index += 3
        return month + 1
    }

    /// Exactly `count` ASCII digits as a number; consumes nothing when they are not there.
    private mutating func digits(_ count: Int) -> Int? {
        guard end - index >= count else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = bytes[index + offset]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        if index + count < end, bytes[index + count] >= 0x30, bytes[index + count] <= 0x39 { return nil }
        index += count
        return value
    }

    /// Consumes `literal` if the bytes continue with it.
    private mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - index >= count,
              equals(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]), literal)
        else { return false }
        index += count
        return true
    }

    private func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount
            && literal.withUTF8Buffer { $0.elementsEqual(bytes) }
    }

    private func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}

extension Int {
    /// Division rounding toward negative infinity.
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder of ``floorDivided(by:)``, never negative for a positive divisor.
    fileprivate func floorModulo(_ divisor: Int) -> Int {
        self - floorDivided(by: divisor) * divisor
    }
}
