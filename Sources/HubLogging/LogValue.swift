import HubModel

/// A log field's value: numbers stay numbers in JSON lines, so log tools can sum and compare.
public enum LogValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    public var json: JSONValue {
        switch self {
        case .string(let text): return .string(text)
        case .int(let number): return .int(number)
        case .double(let number): return number.isFinite ? .double(number) : .string(String(number))
        case .bool(let flag): return .bool(flag)
        }
    }

    /// The value in a `text` line: bare when it is a plain token, else a JSON string literal,
    /// so a client-chosen value (a path with `%0A`, a header) can never start a forged line.
    public var text: String {
        switch self {
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        case .string(let string):
            let plain = !string.isEmpty && string.unicodeScalars.allSatisfy { scalar in
                scalar.value > 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "=" && scalar != "\\"
            }
            return plain ? string : JSONValue.string(string).jsonString
        }
    }
}
