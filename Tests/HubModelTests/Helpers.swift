import HubModel
import Testing

/// Defaults the upstream tests pin (`HUBComponentDefaults+Testing.m`): every test that
/// depends on them says which ones it uses.
let testDefaults = ComponentDefaults(namespace: "namespace", name: "name", category: "category")

/// Parses `text` with the default parser options.
func parseJSON(_ text: String, options: JSONParser.Options = JSONParser.Options()) throws(JSONParseError) -> JSONValue {
    try JSONParser(options: options).parse(text)
}

/// The error parsing `bytes` gives, or `nil` when it parses.
func parseError(_ bytes: [UInt8], options: JSONParser.Options = JSONParser.Options()) -> JSONParseError? {
    do {
        _ = try JSONParser(options: options).parse(bytes)
        return nil
    } catch {
        return error
    }
}

/// The error parsing `text` gives, or `nil` when it parses.
func parseError(_ text: String, options: JSONParser.Options = JSONParser.Options()) -> JSONParseError? {
    parseError(Array(text.utf8), options: options)
}

/// A view model built from one JSON document.
func buildView(
    _ json: String, schema: JSONSchema = .default, defaults: ComponentDefaults = .standard
) throws -> ViewModel {
    var builder = ViewModelBuilder(defaults: defaults)
    try builder.addJSON(Array(json.utf8), schema: schema)
    return builder.build()
}

/// A view model built from several JSON documents applied in order.
func buildView(documents: [String], defaults: ComponentDefaults = .standard) throws -> ViewModel {
    var builder = ViewModelBuilder(defaults: defaults)
    for document in documents { try builder.addJSON(Array(document.utf8)) }
    return builder.build()
}

/// The serialized JSON of a document after parse → build → serialize.
func roundTrip(_ json: String, schema: JSONSchema = .default, defaults: ComponentDefaults = .standard) throws -> String {
    try buildView(json, schema: schema, defaults: defaults).jsonString
}

/// A component model built from one component JSON object.
func buildComponent(
    _ json: String, identifier: String = "c", type: ComponentType = .body, defaults: ComponentDefaults = .standard
) throws -> ComponentModel {
    var builder = ComponentModelBuilder(identifier: identifier, type: type, defaults: defaults)
    try builder.addJSON(Array(json.utf8))
    return builder.build()
}

/// The top-level keys of an object value, in order.
func keys(_ value: JSONValue?) -> [String] {
    value?.objectValue?.orderedKeys ?? []
}

extension ComponentModel {
    /// The component's JSON (the module only offers `write(to:)` for components).
    var jsonString: String {
        var writer = JSONWriter()
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
