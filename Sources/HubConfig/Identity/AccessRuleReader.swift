import HubEngine
import HubModel

/// Reads a feature's `"access"` (docs/SECURITY.md "Features that require a user"):
///
/// ```json
/// "access": { "require": "user" }
/// "access": { "require": "user", "claims": { "plan": ["premium", "family"] } }
/// ```
package enum AccessRuleReader {
    package static func read(_ value: JSONValue, reader: ConfigReader) -> AccessRule? {
        let path = "$.access"
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(object, at: path, known: ["require", "claims"])
        guard let require = reader.string(object, "require", at: path, required: true) else { return nil }
        guard require == "user" else {
            reader.error("\(path).require", "must be \"user\" (omit \"access\" for a public feature)")
            return nil
        }
        var claims: [String: [String]] = [:]
        if let object = reader.object(object["claims"], at: "\(path).claims") {
            for (name, value) in object {
                // One value may be written alone: "tenant": "acme".
                if let single = value.stringValue, !single.isEmpty {
                    claims[name] = [single]
                    continue
                }
                guard let values = reader.stringList(object, name, at: "\(path).claims"), !values.isEmpty else {
                    reader.error("\(path).claims.\(name)", "must list the values that pass, such as [\"premium\"]")
                    continue
                }
                claims[name] = values
            }
        }
        return AccessRule(claims: claims)
    }

    /// The rule in the config's form, for `GET /features`.
    package static func json(_ rule: AccessRule) -> JSONValue {
        var object: JSONObject = ["require": "user"]
        if !rule.claims.isEmpty {
            var claims = JSONObject()
            for (name, values) in rule.claims.sorted(by: { $0.key < $1.key }) { claims[name] = .array(values.map { .string($0) }) }
            object["claims"] = .object(claims)
        }
        return .object(object)
    }
}
