/// A problem in a custom schema's declaration, with its place.
public struct JSONSchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the schema document, e.g. `component.text.title[1]`.
    public let location: String
    public let message: String

    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}
