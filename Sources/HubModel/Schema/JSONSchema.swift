/// How content JSON maps onto the model: HubFramework's default schema, or a custom schema
/// declared as paths (DESIGN.md "Config/schemas", S159..S172).
///
/// A custom schema starts as a copy of the default (S159) and replaces the paths it names.
/// It is applied by rewriting the document into the default schema, so every merge rule of
/// the default schema holds for custom schemas too, nested target views use the same schema
/// (S164), and output is always the default schema (S35).
public struct JSONSchema: Sendable, Equatable {
    /// The schema's name, as features and operations refer to it.
    public let identifier: String
    /// `true` for the untouched default schema, which is applied without rewriting.
    public let isDefault: Bool
    /// Paths per field, keyed `view.title`, `component.text.title`, `image.uri`, `target.actions`, ...
    public private(set) var paths: [String: JSONPath]

    /// HubFramework's default schema (section 1).
    public static let `default` = JSONSchema(identifier: "default", isDefault: true, paths: defaultPaths)

    private init(identifier: String, isDefault: Bool, paths: [String: JSONPath]) {
        self.identifier = identifier
        self.isDefault = isDefault
        self.paths = paths
    }

    /// What each field must hold; multi-valued fields take every value a path yields.
    enum FieldKind {
        case string, uri, object, objects, strings
    }

    /// Every field a schema can map, with its kind.
    static let fields: [String: FieldKind] = [
        "view.id": .string, "view.title": .string, "view.header": .object, "view.body": .objects,
        "view.overlays": .objects, "view.custom": .object,
        "component.id": .string, "component.group": .string, "component.component.id": .string,
        "component.component.category": .string, "component.text.title": .string,
        "component.text.subtitle": .string, "component.text.accessory": .string,
        "component.text.description": .string, "component.images.main": .object,
        "component.images.background": .object, "component.images.custom": .object,
        "component.images.icon": .string, "component.target": .object, "component.metadata": .object,
        "component.logging": .object, "component.custom": .object, "component.children": .objects,
        "image.uri": .uri, "image.placeholder": .string, "image.local": .string, "image.custom": .object,
        "target.uri": .uri, "target.view": .object, "target.actions": .strings, "target.custom": .object,
    ]

    /// Component-level shortcuts into the component's images and target, e.g. `images.main.uri`:
    /// evaluated on the component object, they override the image or target field.
    static let shortcutFields: [String: FieldKind] = {
        var shortcuts: [String: FieldKind] = [:]
        for image in ["main", "background"] {
            shortcuts["component.images.\(image).uri"] = .uri
            shortcuts["component.images.\(image).placeholder"] = .string
            shortcuts["component.images.\(image).local"] = .string
            shortcuts["component.images.\(image).custom"] = .object
        }
        shortcuts["component.target.uri"] = .uri
        shortcuts["component.target.view"] = .object
        shortcuts["component.target.actions"] = .strings
        shortcuts["component.target.custom"] = .object
        return shortcuts
    }()

    static let defaultPaths: [String: JSONPath] = {
        var paths: [String: JSONPath] = [:]
        for (field, kind) in fields {
            let key = field.split(separator: ".").dropFirst().map(String.init)
            var steps = key.map(JSONPath.Step.key)
            if kind == .objects || kind == .strings { steps.append(.each) }
            paths[field] = JSONPath(steps)
        }
        return paths
    }()

    /// Parses a schema document: `{"id": "...", "view": {...}, "component": {...}, "image": {...},
    /// "target": {...}}`, each section mapping field names to paths. Unknown sections and
    /// fields are errors, so a typo never silently falls back to the default.
    public init(json: JSONValue, identifier fallbackIdentifier: String? = nil) throws(JSONSchemaError) {
        guard let object = json.objectValue else {
            throw JSONSchemaError(location: "$", message: "a schema must be a JSON object")
        }
        var identifier = fallbackIdentifier
        if let value = object["id"] {
            guard let string = value.stringValue, !string.isEmpty else {
                throw JSONSchemaError(location: "id", message: "the schema id must be a non-empty string")
            }
            identifier = string
        }
        guard let identifier else {
            throw JSONSchemaError(location: "id", message: "the schema needs an \"id\"")
        }
        guard identifier != "default" else {
            throw JSONSchemaError(location: "id", message: "\"default\" is the built-in schema's id")
        }
        var paths = Self.defaultPaths
        for (section, value) in object where section != "id" {
            guard ["view", "component", "image", "target"].contains(section) else {
                throw JSONSchemaError(
                    location: section, message: "unknown section; expected view, component, image or target")
            }
            guard let fieldsObject = value.objectValue else {
                throw JSONSchemaError(location: section, message: "a section must map field names to paths")
            }
            for (name, pathJSON) in fieldsObject {
                let field = "\(section).\(name)"
                guard Self.fields[field] != nil || Self.shortcutFields[field] != nil else {
                    let allFields: [String] = Array(Self.fields.keys) + Array(Self.shortcutFields.keys)
                    let prefix = section + "."
                    let known: [String] = allFields.filter { $0.hasPrefix(prefix) }
                        .map { String($0.dropFirst(prefix.count)) }.sorted()
                    throw JSONSchemaError(
                        location: field, message: "unknown field; known fields: \(known.joined(separator: ", "))")
                }
                let path = try JSONPath(json: pathJSON, location: field)
                paths[field] = path
            }
        }
        self.init(identifier: identifier, isDefault: false, paths: paths)
    }

    /// A copy under another identifier (S161).
    public func copy(identifier: String) -> JSONSchema {
        JSONSchema(identifier: identifier, isDefault: false, paths: paths)
    }

    // MARK: - Rewriting into the default schema

    /// Rewrites a document in this schema (a view object, or an array of body components,
    /// S2) into the default schema.
    public func normalize(_ document: JSONValue) -> JSONValue {
        if isDefault { return document }
        switch document {
        case .object: return .object(normalizeView(document))
        case .array(let elements): return .array(elements.filter { $0.objectValue != nil }.map { .object(normalizeComponent($0)) })
        default: return document
        }
    }

    private func first(_ field: String, in value: JSONValue) -> JSONValue? {
        guard let path = paths[field], let kind = Self.fields[field] ?? Self.shortcutFields[field] else { return nil }
        return path.firstValue(in: value, accepting: Self.acceptor(for: kind))
    }

    private func all(_ field: String, in value: JSONValue) -> [JSONValue] {
        guard let path = paths[field], let kind = Self.fields[field] ?? Self.shortcutFields[field] else { return [] }
        let accept = Self.acceptor(for: kind)
        // A path ending in "*" yields the elements themselves: an element that is an array
        // is skipped, as the default schema skips it (S2, S159).
        if case .each? = path.steps.last { return path.values(in: value, accepting: accept) }
        var results: [JSONValue] = []
        // A path that ends on the array itself (no "*") still yields its elements.
        for value in path.values(in: value, accepting: { accept($0) || $0.arrayValue != nil }) {
            if let elements = value.arrayValue {
                results.append(contentsOf: elements.filter(accept))
            } else {
                results.append(value)
            }
        }
        return results
    }

    static func acceptor(for kind: FieldKind) -> (JSONValue) -> Bool {
        switch kind {
        case .string, .strings: return { $0.stringValue != nil }
        case .uri: return { $0.stringValue.map(URIReference.isValid) ?? false }
        case .object, .objects: return { $0.objectValue != nil }
        }
    }

    private func normalizeView(_ view: JSONValue) -> JSONObject {
        var output = JSONObject()
        if let id = first("view.id", in: view) { output["id"] = id }
        if let title = first("view.title", in: view) { output["title"] = title }
        if let header = first("view.header", in: view) { output["header"] = .object(normalizeComponent(header)) }
        let body = all("view.body", in: view)
        if !body.isEmpty { output["body"] = .array(body.map { .object(normalizeComponent($0)) }) }
        let overlays = all("view.overlays", in: view)
        if !overlays.isEmpty { output["overlays"] = .array(overlays.map { .object(normalizeComponent($0)) }) }
        if let custom = first("view.custom", in: view) { output["custom"] = custom }
        return output
    }

    private func normalizeComponent(_ component: JSONValue) -> JSONObject {
        var output = JSONObject()
        if let id = first("component.id", in: component) { output["id"] = id }
        if let group = first("component.group", in: component) { output["group"] = group }
        var identity = JSONObject()
        if let id = first("component.component.id", in: component) { identity["id"] = id }
        if let category = first("component.component.category", in: component) { identity["category"] = category }
        if !identity.isEmpty { output["component"] = .object(identity) }
        var text = JSONObject()
        for key in ["title", "subtitle", "accessory", "description"] {
            if let value = first("component.text.\(key)", in: component) { text[key] = value }
        }
        if !text.isEmpty { output["text"] = .object(text) }

        var images = JSONObject()
        for name in ["main", "background"] {
            var image = first("component.images.\(name)", in: component).map(normalizeImage) ?? JSONObject()
            for key in ["uri", "placeholder", "local", "custom"] {
                let field = "component.images.\(name).\(key)"
                if paths[field] != nil, let value = first(field, in: component) { image[key] = value }
            }
            if !image.isEmpty { images[name] = .object(image) }
        }
        if let icon = first("component.images.icon", in: component) { images["icon"] = icon }
        if let custom = first("component.images.custom", in: component)?.objectValue {
            var customImages = JSONObject()
            for (name, value) in custom where value.objectValue != nil { customImages[name] = .object(normalizeImage(value)) }
            if !customImages.isEmpty { images["custom"] = .object(customImages) }
        }
        if !images.isEmpty { output["images"] = .object(images) }

        var target = first("component.target", in: component).map(normalizeTarget)
        for key in ["uri", "view", "actions", "custom"] {
            let field = "component.target.\(key)"
            guard paths[field] != nil else { continue }
            if key == "actions" {
                let actions = all(field, in: component)
                if !actions.isEmpty {
                    if target == nil { target = JSONObject() }
                    target!["actions"] = .array(actions)
                }
            } else if let value = first(field, in: component) {
                if target == nil { target = JSONObject() }
                target![key] = key == "view" ? .object(normalizeView(value)) : value
            }
        }
        if let target { output["target"] = .object(target) }

        if let metadata = first("component.metadata", in: component) { output["metadata"] = metadata }
        if let logging = first("component.logging", in: component) { output["logging"] = logging }
        if let custom = first("component.custom", in: component) { output["custom"] = custom }
        let children = all("component.children", in: component)
        if !children.isEmpty { output["children"] = .array(children.map { .object(normalizeComponent($0)) }) }
        return output
    }

    private func normalizeImage(_ image: JSONValue) -> JSONObject {
        var output = JSONObject()
        for key in ["uri", "placeholder", "local", "custom"] {
            if let value = first("image.\(key)", in: image) { output[key] = value }
        }
        return output
    }

    private func normalizeTarget(_ target: JSONValue) -> JSONObject {
        var output = JSONObject()
        if let uri = first("target.uri", in: target) { output["uri"] = uri }
        if let view = first("target.view", in: target) { output["view"] = .object(normalizeView(view)) }
        let actions = all("target.actions", in: target)
        if !actions.isEmpty { output["actions"] = .array(actions) }
        if let custom = first("target.custom", in: target) { output["custom"] = custom }
        return output
    }
}
