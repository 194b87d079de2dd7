import HubEngine
import HubModel

/// `patch`: merges component JSON into components by id (header, body, overlays), like a
/// second JSON document; an id not present is appended as a new body component. Then
/// `remove` drops ids and `move` sets preferred indexes.
package struct PatchOperation: ContentOperation {
    package let definition: PatchDefinition
    package let memoKey: String

    package init(definition: PatchDefinition, memoKey: String) {
        self.definition = definition
        self.memoKey = memoKey
    }

    package var name: String { "patch" }
    package var completesSynchronously: Bool { true }

    package func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        for (id, component) in definition.set {
            if builder.header?.identifier == id {
                builder.withHeader { header in try? header.add(json: component) }
            } else if builder.overlays.contains(id) {
                try builder.overlays.update(id) { try $0.add(json: component) }
            } else {
                try builder.body.update(id) { try $0.add(json: component) }
            }
        }
        for id in definition.remove {
            if builder.header?.identifier == id { builder.removeHeader() }
            builder.body.remove(id)
            builder.overlays.remove(id)
        }
        for (id, index) in definition.move {
            if builder.body.contains(id) {
                builder.body.update(id) { $0.preferredIndex = index }
            } else if builder.overlays.contains(id) {
                builder.overlays.update(id) { $0.preferredIndex = index }
            }
        }
    }

    package func memoizationKey(context: ContentContext) -> String? { memoKey }
    package func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
}
