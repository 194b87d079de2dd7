/// The value of one top-level claim of a verified token, as JSON has it. Nested objects are kept
/// only as present (``object``): access rules and URL placeholders use strings, numbers,
/// booleans and arrays of them.
public enum ClaimValue: Sendable, Equatable {
    /// A JSON string.
    case string(String)
    /// A JSON number.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// A JSON array; its members as claim values.
    case array([ClaimValue])
    /// A JSON object: present, its contents not kept.
    case object
    /// `null`.
    case null

    /// Whether this claim holds one of `allowed`: a string equal to one of them, a number or
    /// boolean whose JSON text (``text``) is one of them, or an array any member of which
    /// matches. Objects and `null` match nothing.
    public func matches(anyOf allowed: [String]) -> Bool {
        switch self {
        case .array(let members): members.contains { $0.matches(anyOf: allowed) }
        case .object, .null: false
        default: text.map(allowed.contains) ?? false
        }
    }

    /// The text for a URL placeholder: a string as it is, a number or boolean as its JSON text
    /// (`42`, `1.5`, `true`); nil for arrays, objects and `null`.
    public var text: String? {
        switch self {
        case .string(let value): value
        case .bool(let value): value ? "true" : "false"
        case .number(let value): Self.jsonText(value)
        case .array, .object, .null: nil
        }
    }

    /// A number as JSON writes it: whole numbers without a fraction (`42`, `-3`), others in
    /// Swift's shortest round-trip form (`1.5`, `1e+100`).
    static func jsonText(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return "\(value)"
    }
}
