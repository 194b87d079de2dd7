import HubModel

/// Typed reads from one config file's JSON, recording an issue for every wrong or unknown
/// field instead of stopping at the first.
package final class ConfigReader {
    package let file: String
    private(set) var issues: [ConfigIssue] = []

    package init(file: String) {
        self.file = file
    }

    package func error(_ path: String, _ message: String) {
        issues.append(ConfigIssue(file: file, path: path, message: message))
    }

    package func warning(_ path: String, _ message: String) {
        issues.append(ConfigIssue(file: file, path: path, message: message, severity: .warning))
    }

    package var hasErrors: Bool { issues.contains { $0.severity == .error } }

    /// Warns about keys outside `known` (typos would otherwise be silently ignored).
    package func checkKeys(_ object: JSONObject, at path: String, known: Set<String>) {
        for key in object.orderedKeys where !known.contains(key) {
            warning(Self.join(path, key), "unknown key, ignored (known: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// The top-level key an editor reads to find a file's JSON Schema (docs/schema/).
    package static let schemaKey = "$schema"

    /// `root` without its `$schema` (editor support, otherwise ignored), which must be a string
    /// when present; for readers that treat every key as data (toggle names, namespaces, sections).
    /// A `$comment` (JSON Schema's comment keyword: a note for whoever edits the file, such as
    /// why a setting has its value) is dropped the same way; it too must be a string.
    package func removingSchemaReference(_ root: JSONObject) -> JSONObject {
        guard root[Self.schemaKey] != nil || root[Self.commentKey] != nil else { return root }
        var rest = root
        if let value = root[Self.schemaKey] {
            if value.stringValue == nil {
                error(Self.join("$", Self.schemaKey), "must be a string: the path or URL of this file's JSON Schema (docs/schema/)")
            }
            rest[Self.schemaKey] = nil
        }
        if let value = root[Self.commentKey] {
            if value.stringValue == nil { error(Self.join("$", Self.commentKey), "must be a string: a note for the file's readers") }
            rest[Self.commentKey] = nil
        }
        return rest
    }

    /// The top-level key of a note for the file's readers (ignored, like `$schema`).
    package static let commentKey = "$comment"

    /// An integer: an integer literal, or a number without a fraction that fits (`8e3`, `8080.0`),
    /// as JSON Schema's `integer` reads it, so the config schemas and the loader agree.
    package static func integer(_ value: JSONValue) -> Int? {
        switch value {
        case .int(let integer): return integer
        case .double(let double): return Int(exactly: double)
        default: return nil
        }
    }

    package func object(_ value: JSONValue?, at path: String) -> JSONObject? {
        guard let value else { return nil }
        guard let object = value.objectValue else {
            error(path, "must be an object")
            return nil
        }
        return object
    }

    package func string(_ object: JSONObject, _ key: String, at path: String, required: Bool = false, nonEmpty: Bool = true) -> String? {
        let fieldPath = Self.join(path, key)
        guard let value = object[key] else {
            if required { error(fieldPath, "is required") }
            return nil
        }
        guard let string = value.stringValue else {
            error(fieldPath, "must be a string")
            return nil
        }
        if nonEmpty && string.isEmpty {
            error(fieldPath, "must not be empty")
            return nil
        }
        return string
    }

    package func int(_ object: JSONObject, _ key: String, at path: String, range: ClosedRange<Int>? = nil) -> Int? {
        let fieldPath = Self.join(path, key)
        guard let value = object[key] else { return nil }
        guard let integer = Self.integer(value) else {
            error(fieldPath, "must be an integer")
            return nil
        }
        if let range, !range.contains(integer) {
            error(fieldPath, "must be between \(range.lowerBound) and \(range.upperBound)")
            return nil
        }
        return integer
    }

    /// A number of seconds (integer or decimal) within `range`. Every duration in the config
    /// has a range, so a value `validate` accepts can always become a `Duration` (1e300 once
    /// trapped `serve` in the conversion), and `validate` and `serve` read the same rules.
    package func seconds(_ object: JSONObject, _ key: String, at path: String, range: ClosedRange<Double>) -> Double? {
        let fieldPath = Self.join(path, key)
        guard let value = object[key] else { return nil }
        let number: Double
        switch value {
        case .int(let integer): number = Double(integer)
        case .double(let double): number = double
        default:
            error(fieldPath, "must be a number of seconds")
            return nil
        }
        guard number.isFinite, range.contains(number) else {
            error(fieldPath, "must be a number of seconds between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound))")
            return nil
        }
        return number
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    package func bool(_ object: JSONObject, _ key: String, at path: String) -> Bool? {
        guard let value = object[key] else { return nil }
        guard let flag = value.boolValue else {
            error(Self.join(path, key), "must be true or false")
            return nil
        }
        return flag
    }

    package func stringList(_ object: JSONObject, _ key: String, at path: String) -> [String]? {
        let fieldPath = Self.join(path, key)
        guard let value = object[key] else { return nil }
        if let single = value.stringValue { return [single] }
        guard let elements = value.arrayValue else {
            error(fieldPath, "must be a string or a list of strings")
            return nil
        }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard let string = element.stringValue else {
                error("\(fieldPath)[\(index)]", "must be a string")
                continue
            }
            strings.append(string)
        }
        return strings
    }

    /// A list of `namespace:name` identifiers.
    package func actionIdentifiers(_ object: JSONObject, _ key: String, at path: String) -> [ComponentIdentifier]? {
        guard let strings = stringList(object, key, at: path) else { return nil }
        var identifiers: [ComponentIdentifier] = []
        for (index, string) in strings.enumerated() {
            guard let identifier = ComponentIdentifier(string: string), !identifier.namespace.isEmpty, !identifier.name.isEmpty
            else {
                error("\(Self.join(path, key))[\(index)]", "'\(string)' is not a namespace:name action identifier")
                continue
            }
            identifiers.append(identifier)
        }
        return identifiers
    }

    package static func join(_ path: String, _ key: String) -> String {
        let isPlain = key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return isPlain ? "\(path).\(key)" : "\(path)[\"\(key)\"]"
    }
}
