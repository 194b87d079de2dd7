import HubPrimitives
import Synchronization

/// Request ids: a client's `X-Request-Id` is echoed when it is 1...128 visible ASCII characters,
/// otherwise one is generated (a random per-process prefix and a counter: unique, cheap).
public enum RequestID {
    public static let headerName = "X-Request-Id"
    static let maxLength = 128

    /// The per-process prefix: 64 random bits, written as 16 hex digits.
    private static let prefix = UInt64.random(in: 0...UInt64.max)

    /// ``prefix``'s 16 hex digits and the `-` after them, written once for every generated id.
    private static let prefixText: [UInt8] =
        stride(from: 60, through: 0, by: -4).map { Hex.digit(UInt8(truncatingIfNeeded: prefix >> UInt64($0)) & 0x0F) }
        + [UInt8(ascii: "-")]

    private static let counter = Atomic<UInt64>(0)

    /// The client's id if sane, else a new one.
    public static func make(for request: HTTPRequest) -> String {
        value(for: request).text
    }

    /// A new id such as `5f3a9c0e12ab77d0-1a`.
    public static func generate() -> String {
        next().text
    }

    /// The client's id if sane, else a new one, as a ``Value``: a generated id stays a number
    /// until something reads its text.
    public static func value(for request: HTTPRequest) -> Value {
        if let sent = request.headers[headerName], isSane(sent) { return .text(sent) }
        return next()
    }

    /// A new id, as a number.
    public static func next() -> Value {
        .generated(counter.add(1, ordering: .relaxed).newValue)
    }

    /// 1...128 bytes, each visible ASCII (0x21...0x7E).
    public static func isSane(_ value: String) -> Bool {
        let utf8 = value.utf8
        return !utf8.isEmpty && utf8.count <= maxLength && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// A request's id: text (a client's, or one an embedding app chose) or a generated one kept
    /// as its counter, so that the response head writes its digits and no request pays for a
    /// string it never reads (the text is made for a log line).
    public enum Value: Sendable, Equatable {
        /// An id given as text.
        case text(String)
        /// The `n`th id this process generated: the process's prefix, `-`, `n` in hex.
        case generated(UInt64)

        /// The id as text, such as `5f3a9c0e12ab77d0-1a`.
        public var text: String {
            switch self {
            case .text(let text):
                return text
            case .generated(let number):
                return String(unsafeUninitializedCapacity: Self.generatedLength(number)) { out in
                    var writer = HeadWriter(base: out.baseAddress!, capacity: out.count)
                    Self.write(number, into: &writer)
                    return writer.count
                }
            }
        }

        /// The bytes ``write(into:)`` writes (at most, for text: it is written as it is).
        var utf8Count: Int {
            switch self {
            case .text(let text): text.utf8.count
            case .generated(let number): Self.generatedLength(number)
            }
        }

        /// Writes the id into a response head (text sanitized, as every field value is).
        func write(into writer: inout HeadWriter) {
            switch self {
            case .text(let text): writer.appendSanitized(text)
            case .generated(let number): Self.write(number, into: &writer)
            }
        }

        /// 16 prefix digits, `-`, and the counter's digits (at least one).
        private static func generatedLength(_ number: UInt64) -> Int {
            17 + digits(number)
        }

        private static func digits(_ number: UInt64) -> Int {
            max(1, (67 - number.leadingZeroBitCount) / 4)
        }

        private static func write(_ number: UInt64, into writer: inout HeadWriter) {
            RequestID.prefixText.withUnsafeBufferPointer { writer.append($0) }
            for shift in stride(from: (digits(number) - 1) * 4, through: 0, by: -4) {
                writer.append(Hex.digit(UInt8(truncatingIfNeeded: number >> UInt64(shift)) & 0x0F))
            }
        }
    }
}
