/// A declarative path into a JSON document (DESIGN.md "Config/schemas"): the data form of
/// HubFramework's `goTo` / `forEach` / `combineWithPath` (S165..S172).
///
/// A path maps a value to a *list* of values: `key` goes into an object (a missing key or a
/// non-object yields nothing, S165), `each` fans out over an array (S166), and `first` takes
/// the results of the first alternative that yields something the destination accepts (the
/// key-rename fallback of S171).
public struct JSONPath: Sendable, Equatable, CustomStringConvertible {
    /// One step of a path.
    public indirect enum Step: Sendable, Equatable {
        case key(String)
        /// `"*"`: every element of an array.
        case each
        /// `{"first": [path, path, ...]}`.
        case first([JSONPath])
    }

    public var steps: [Step]

    public init(_ steps: [Step]) {
        self.steps = steps
    }

    /// A path of plain keys.
    public init(keys: String...) {
        self.steps = keys.map { .key($0) }
    }

    /// The values this path yields from `root`, keeping only those `accept` takes (the
    /// destination type check, S167, S170).
    public func values(in root: JSONValue, accepting accept: (JSONValue) -> Bool) -> [JSONValue] {
        var results: [JSONValue] = []
        collect(root, from: steps[...], accept: accept, into: &results)
        return results
    }

    /// The first value this path yields that `accept` takes.
    public func firstValue(in root: JSONValue, accepting accept: (JSONValue) -> Bool) -> JSONValue? {
        values(in: root, accepting: accept).first
    }

    private func collect(
        _ value: JSONValue, from steps: ArraySlice<Step>, accept: (JSONValue) -> Bool, into results: inout [JSONValue]
    ) {
        guard let step = steps.first else {
            if accept(value) { results.append(value) }
            return
        }
        let rest = steps.dropFirst()
        switch step {
        case .key(let key):
            guard let next = value[key] else { return }
            collect(next, from: rest, accept: accept, into: &results)
        case .each:
            guard let elements = value.arrayValue else { return }
            for element in elements { collect(element, from: rest, accept: accept, into: &results) }
        case .first(let alternatives):
            for alternative in alternatives {
                var found: [JSONValue] = []
                collect(value, from: alternative.steps[...] + rest, accept: accept, into: &found)
                if !found.isEmpty {
                    results.append(contentsOf: found)
                    return
                }
            }
        }
    }

    /// The path written back in its config form, e.g. `["data","items","*"]`.
    public var description: String { jsonValue.jsonString }

    /// The config form of this path.
    public var jsonValue: JSONValue {
        .array(
            steps.map { step in
                switch step {
                case .key(let key): return .string(key)
                case .each: return .string("*")
                case .first(let alternatives): return ["first": .array(alternatives.map(\.jsonValue))]
                }
            })
    }

    /// Parses the config form: a list whose steps are keys, `"*"` or `{"first": [path, ...]}`.
    /// `location` names the place for errors.
    public init(json: JSONValue, location: String) throws(JSONSchemaError) {
        // A lone `{"first": [...]}` is a one-step path (DESIGN.md's example writes
        // `"text.title": {"first": [["name"], ["title"]]}`).
        if json.objectValue != nil {
            self = try JSONPath(json: [json], location: location)
            return
        }
        guard let elements = json.arrayValue else {
            throw JSONSchemaError(location: location, message: "a path must be a list of steps, e.g. [\"data\", \"items\", \"*\"]")
        }
        var steps: [Step] = []
        for (position, element) in elements.enumerated() {
            let stepLocation = "\(location)[\(position)]"
            switch element {
            case .string("*"): steps.append(.each)
            case .string(let key): steps.append(.key(key))
            case .object(let object):
                guard object.count == 1, let alternatives = object["first"]?.arrayValue, !alternatives.isEmpty else {
                    throw JSONSchemaError(
                        location: stepLocation, message: "an object step must be {\"first\": [path, path, ...]} with at least one path")
                }
                var paths: [JSONPath] = []
                for (index, alternative) in alternatives.enumerated() {
                    paths.append(try JSONPath(json: alternative, location: "\(stepLocation).first[\(index)]"))
                }
                steps.append(.first(paths))
            default:
                throw JSONSchemaError(location: stepLocation, message: "a step must be a key, \"*\" or {\"first\": [...]}")
            }
        }
        self.steps = steps
    }
}
