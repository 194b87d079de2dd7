import HubModel

/// A value `{"$t": "key"}` or `{"$t": "key", "args": {...}}` in static or remote content: the
/// catalog string of the request's locale stands in for it (``StringResolver``).
package struct StringReference {
    /// The key `"$t"` names.
    package static let marker = "$t"

    package let key: String
    package let args: JSONObject?

    /// The reference `value` is: an object with a string `"$t"` and, besides it, at most an
    /// object `"args"`; nil for anything else (such an object stays content).
    package init?(_ value: JSONValue) {
        guard case .object(let object) = value, object.count <= 2, let key = object[Self.marker]?.stringValue else {
            return nil
        }
        var args: JSONObject?
        for (name, field) in object where name != Self.marker {
            guard name == "args", case .object(let given) = field else { return nil }
            args = given
        }
        self.key = key
        self.args = args
    }

    /// Calls `found` with every reference in `value`, depth first, in document order.
    package static func forEach(in value: JSONValue, _ found: (StringReference) -> Void) {
        if let reference = StringReference(value) {
            found(reference)
            return
        }
        switch value {
        case .array(let elements): for element in elements { forEach(in: element, found) }
        case .object(let object): for (_, field) in object { forEach(in: field, found) }
        default: break
        }
    }

    /// Whether `value` holds a reference anywhere.
    package static func occurs(in value: JSONValue) -> Bool {
        var found = false
        forEach(in: value) { _ in found = true }
        return found
    }
}
