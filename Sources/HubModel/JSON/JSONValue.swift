/// A JSON value as HubServer keeps it: objects keep their key order and integers stay integers.
///
/// Free-form dictionaries of the content model (`custom`, `metadata`, `logging`) are stored as
/// ``JSONObject`` values, so serialization writes them back in their input order, byte for byte.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer literal (no fraction, no exponent) that fits in 64 bits.
    case int(Int)
    /// Any other number; always finite.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, when this value is a string.
    @inlinable public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object, when this value is an object.
    @inlinable public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, when this value is an array.
    @inlinable public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The integer, when this value is an integer literal.
    @inlinable public var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The boolean, when this value is `true` or `false`.
    @inlinable public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// `true` for `null`.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value at `key` when this value is an object.
    @inlinable public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// Numbers compare by value across `int` and `double` (`1 == 1.0`), like JSON itself.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
    public init(nilLiteral: ()) { self = .null }
}
