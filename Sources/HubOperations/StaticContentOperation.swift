import HubEngine
import HubModel

/// `static`: content from config (inline `json` or a `file`), parsed once at start-up.
///
/// As the first operation (an empty builder) it hands out a prebuilt builder, so every
/// session shares the same component storage until something changes it.
package struct StaticContentOperation: ContentOperation {
    package let name: String
    /// The document, already rewritten into the default schema.
    package let document: JSONValue
    package let prebuilt: ViewModelBuilder
    package let memoKey: String

    package init(name: String = "static", document: JSONValue, schema: JSONSchema, defaults: ComponentDefaults, memoKey: String) {
        self.name = name
        self.document = schema.normalize(document)
        var builder = ViewModelBuilder(defaults: defaults)
        try? builder.add(json: self.document)
        self.prebuilt = builder
        self.memoKey = memoKey
    }

    package var completesSynchronously: Bool { true }

    package func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        if builder.isEmpty && builder.identifier == nil && builder.title == nil && builder.customData == nil {
            builder = prebuilt
        } else {
            try builder.add(json: document)
        }
    }

    package func memoizationKey(context: ContentContext) -> String? { memoKey }
    package func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
}

/// `recover`: when the previous operation failed, applies its content and clears the error
/// (S94); otherwise does nothing.
package struct RecoverOperation: ContentOperation {
    package let document: JSONValue
    package let memoKey: String

    package init(document: JSONValue, schema: JSONSchema, memoKey: String) {
        self.document = schema.normalize(document)
        self.memoKey = memoKey
    }

    package var name: String { "recover" }
    package var completesSynchronously: Bool { true }

    package func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        guard context.previousError != nil else { return }
        try builder.add(json: document)
    }

    package func memoizationKey(context: ContentContext) -> String? { memoKey }
    package func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
}
