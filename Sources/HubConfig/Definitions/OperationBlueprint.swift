import HubEngine
import HubLogging
import HubModel
import HubOperations
import HubUpstream

/// A configured operation prepared at start-up: stateless kinds are built once and shared by
/// every session; remote and swift operations are made per session; variants pick a branch
/// per request.
indirect enum OperationBlueprint: Sendable {
    case shared(any ContentOperation)
    case perSession(wrap: Wrapping, make: @Sendable (ViewRequest, FeatureInfo) -> any ContentOperation)
    case variant(toggle: ToggleDefinition, variants: [String: [OperationBlueprint]])

    /// What every configured operation may add around its kind.
    struct Wrapping: Sendable {
        /// `initial`, `rescheduleOn` and the `kind` written in config (`static`, `remote`,
        /// `patch`, ..., for explain mode), shared by every operation this wraps.
        let settings: ConfiguredOperation.Settings
        let paginated: Bool

        init(initial: JSONValue?, rescheduleOn: Set<ComponentIdentifier>, paginated: Bool, kind: String) {
            settings = ConfiguredOperation.Settings(initial: initial, rescheduleOn: rescheduleOn, kind: kind)
            self.paginated = paginated
        }

        func wrap(_ operation: any ContentOperation) -> any ContentOperation {
            let configured = ConfiguredOperation(inner: operation, settings: settings)
            if paginated, let pages = operation as? any ContentOperationWithPaginatedContent {
                return PaginatedConfiguredOperation(base: configured, paginated: pages)
            }
            return configured
        }
    }
}

/// Builds blueprints from definitions, once per feature at start-up.
struct BlueprintBuilder {
    let settings: ServerSettings
    let schemas: [String: JSONSchema]
    let toggles: [String: ToggleDefinition]
    let swift: SwiftExtensions
    let remote: RemoteServices
    let logger: JSONLogger?
    /// Resolves `{"$t"}` references (`locales` and `strings/`); nil: none are resolved.
    var strings: StringResolver? = nil

    func build(_ definitions: [OperationDefinition], feature: FeatureDefinition, path: String) -> [OperationBlueprint] {
        definitions.enumerated().map { index, definition in
            build(definition, feature: feature, path: "\(path)[\(index)]")
        }
    }

    private func build(_ definition: OperationDefinition, feature: FeatureDefinition, path: String) -> OperationBlueprint {
        // Custom schemas describe upstream JSON: only `remote` content is read with them.
        // Content written in config (static, recover, patch, initial) is in the default schema.
        let featureSchema = feature.schema.flatMap { schemas[$0] } ?? .default
        let memoKey = "\(feature.identifier)\(path)"
        // A remote operation pages when its definition says so; a Swift operation when its type
        // adopts ContentOperationWithPaginatedContent (the embedding app decides).
        let paginated: Bool
        switch definition.kind {
        case .remote(let remote): paginated = remote.paginated
        case .swift: paginated = true
        default: paginated = false
        }
        let wrapping = OperationBlueprint.Wrapping(
            initial: definition.initial, rescheduleOn: Set(definition.rescheduleOn),
            paginated: paginated, kind: definition.kind.configName)
        switch definition.kind {
        case .staticContent(let document):
            let defaults = settings.components
            return .shared(wrapping.wrap(localized("static", document) {
                StaticContentOperation(document: $0, schema: .default, defaults: defaults, memoKey: memoKey)
            }))
        case .recover(let document):
            return .shared(wrapping.wrap(localized("recover", document) {
                RecoverOperation(document: $0, schema: .default, memoKey: memoKey)
            }))
        case .patch(let patch):
            // `set` is content written in config too: its references are resolved per locale.
            return .shared(wrapping.wrap(localized("patch", .object(patch.set)) { resolved in
                PatchOperation(
                    definition: PatchDefinition(set: resolved.objectValue ?? patch.set, remove: patch.remove, move: patch.move),
                    memoKey: memoKey)
            }))
        case .remote(let remote):
            let remoteSettings = RemoteOperation.Settings(
                definition: remote, schema: remote.schema.flatMap { schemas[$0] } ?? featureSchema,
                services: self.remote, defaultTimeout: .milliseconds(settings.upstream.timeoutMs),
                jsonDepth: settings.limits.jsonDepth, logger: logger, strings: strings)
            return .perSession(wrap: wrapping) { _, _ in RemoteOperation(settings: remoteSettings) }
        case .swift(let name):
            let defaults = settings.components
            guard let make = swift.operations[name] else {
                // The loader checks names when the app registered any; report at run time otherwise.
                return .shared(wrapping.wrap(MissingSwiftOperation(operationName: name)))
            }
            return .perSession(wrap: wrapping) { request, feature in
                make(SwiftOperationContext(request: request, feature: feature, componentDefaults: defaults))
            }
        case .variant(let toggleName, let variants):
            guard let toggle = toggles[toggleName] else { return .shared(wrapping.wrap(PassThroughOperation())) }
            var built: [String: [OperationBlueprint]] = [:]
            for (value, operations) in variants {
                built[value] = build(operations, feature: feature, path: "\(path).variants.\(value)")
            }
            return .variant(toggle: toggle, variants: built)
        }
    }
}

extension BlueprintBuilder {
    /// `make(document)` (a `static` or `recover` document, a patch's `set`), or one per
    /// supported locale when `document` holds `{"$t"}` references
    /// and locales are configured (``LocalizedContentOperation``).
    func localized(
        _ name: String, _ document: JSONValue, make: (JSONValue) -> any ContentOperation
    ) -> any ContentOperation {
        guard let strings, StringReference.occurs(in: document) else { return make(document) }
        return LocalizedContentOperation(name: name, document: document, strings: strings, make: make)
    }
}

/// The operations of one configured feature for a new session.
package struct ConfiguredOperationFactory: ContentOperationFactory {
    let blueprints: [OperationBlueprint]
    let feature: FeatureInfo
    let allowToggleOverride: Bool

    package func makeOperations(for request: ViewRequest) -> [any ContentOperation] {
        var operations: [any ContentOperation] = []
        append(blueprints, for: request, into: &operations)
        if operations.isEmpty { operations.append(PassThroughOperation()) }
        return operations
    }

    /// The toggles this chain reads (its `variant` operations, nested ones included), each
    /// once, in chain order, when a `Hub-Toggle` override may force them (`allowToggleOverride`,
    /// as of the config this factory was built from): what `GET /features` lists for QA.
    package var overridableToggles: [ToggleDefinition] {
        guard allowToggleOverride else { return [] }
        var found: [ToggleDefinition] = []
        func collect(_ blueprints: [OperationBlueprint]) {
            for case .variant(let toggle, let variants) in blueprints {
                if !found.contains(where: { $0.name == toggle.name }) { found.append(toggle) }
                for value in toggle.values { collect(variants[value] ?? []) }
            }
        }
        collect(blueprints)
        return found
    }

    private func append(_ blueprints: [OperationBlueprint], for request: ViewRequest, into operations: inout [any ContentOperation]) {
        for blueprint in blueprints {
            switch blueprint {
            case .shared(let operation):
                operations.append(operation)
            case .perSession(let wrapping, let make):
                operations.append(wrapping.wrap(make(request, feature)))
            case .variant(let toggle, let variants):
                let value = toggle.value(for: request, allowOverride: allowToggleOverride)
                append(variants[value] ?? [], for: request, into: &operations)
            }
        }
    }
}

/// Stands in for an empty variant branch so a chain is never empty: changes nothing.
struct PassThroughOperation: ContentOperation {
    var name: String { "variant" }
    var completesSynchronously: Bool { true }
    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        if let error = context.previousError { throw error }
    }
    func memoizationKey(context: ContentContext) -> String? { "pass" }
    func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
}

/// A `swift` operation whose name the app did not register: fails with a clear error.
struct MissingSwiftOperation: ContentOperation {
    let operationName: String
    var name: String { operationName }
    var completesSynchronously: Bool { true }

    struct NotRegistered: Error, CustomStringConvertible {
        let name: String
        var description: String { "no Swift operation is registered as '\(name)'" }
    }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        throw NotRegistered(name: operationName)
    }
}
