/// A `namespace:name` pair naming a component implementation or an action (S83).
public struct ComponentIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The namespace, e.g. `default` in `default:row`.
    public var namespace: String
    /// The name within the namespace, e.g. `row` in `default:row`.
    public var name: String

    public init(namespace: String, name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// Parses `"namespace:name"`: exactly two `:`-separated parts, as HubFramework's
    /// `HUBIdentifier(string:)` (S83, S18). `""`, `"name"` and `"a:b:c"` give `nil`.
    public init?(string: String) {
        let utf8 = string.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let rest = utf8[utf8.index(after: colon)...]
        guard !rest.contains(UInt8(ascii: ":")) else { return nil }
        // Slices of the UTF-8 view, never Character indices: a combining mark or an emoji
        // modifier after the ':' forms one grapheme cluster with it ("a:🏻" has the name "🏻").
        self.namespace = String(decoding: utf8[..<colon], as: UTF8.self)
        self.name = String(decoding: rest, as: UTF8.self)
    }

    /// `"namespace:name"`.
    public var identifierString: String { namespace + ":" + name }

    public var description: String { identifierString }
}

extension ComponentIdentifier: ExpressibleByStringLiteral {
    /// A literal must be a valid `"namespace:name"`; anything else is a programming error.
    public init(stringLiteral value: String) {
        guard let identifier = ComponentIdentifier(string: value) else {
            preconditionFailure("'\(value)' is not a namespace:name identifier")
        }
        self = identifier
    }
}
