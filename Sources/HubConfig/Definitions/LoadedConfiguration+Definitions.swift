import HubEngine
import HubLogging
import HubModel
import HubOperations

extension LoadedConfiguration {
    /// The features and actions this configuration declares, built on `remote`: what an engine
    /// starts with and what a reload installs. Throws ``ConfigurationError`` (an unregistered
    /// Swift action factory, a duplicate feature identifier or action namespace).
    package func makeDefinitions(
        extensions: SwiftExtensions, remote: RemoteServices, logger: JSONLogger?
    ) throws -> (features: FeatureRegistry, actions: ActionRegistry) {
        let settings = self.settings
        var builder = BlueprintBuilder(
            settings: settings, schemas: schemas, toggles: toggles, swift: extensions,
            remote: remote, logger: logger)
        builder.strings = settings.locales.map {
            StringResolver(catalogs: strings, settings: $0, missing: remote.stringsMissing)
        }
        let features = self.features.map { definition in
            let info = FeatureInfo(identifier: definition.identifier, title: definition.title, localizedTitles: definition.titles)
            let blueprints = builder.build(definition.operations, feature: definition, path: "operations")
            return Feature(
                identifier: definition.identifier, title: definition.title, localizedTitles: definition.titles,
                predicate: definition.predicate,
                operationFactories: [
                    ConfiguredOperationFactory(
                        blueprints: blueprints, feature: info, allowToggleOverride: settings.allowToggleOverride)
                ],
                reloadPolicy: definition.reloadPolicy, schemaIdentifier: definition.schema,
                actionHandler: definition.vetoedActions.isEmpty
                    ? nil : VetoListActionHandler(vetoed: Set(definition.vetoedActions)),
                access: definition.access, readsUser: definition.readsUser)
        }
        var factories: [(namespace: String, factory: any ActionFactory)] = []
        for (namespace, definition) in actions {
            switch definition {
            case .remote(let url, let timeoutMs, let headers, let forwardHeaders, let forwardIdentity):
                factories.append((
                    namespace,
                    RemoteActionFactory(
                        namespace: namespace, url: url, timeout: .milliseconds(timeoutMs ?? settings.upstream.timeoutMs),
                        headers: headers, forwardHeaders: forwardHeaders, forwardIdentity: forwardIdentity, client: remote.client)
                ))
            case .swift(let name):
                guard let factory = extensions.actionFactories[name] else {
                    throw ConfigurationError(issues: [
                        ConfigIssue(file: "actions.json", path: "$.\(namespace).name", message: "no Swift action factory is registered as '\(name)'")
                    ])
                }
                factories.append((namespace, factory))
            }
        }
        do {
            return (try FeatureRegistry(features: features), try ActionRegistry(factories: factories))
        } catch let error as FeatureRegistry.ValidationError {
            throw ConfigurationError(issues: [ConfigIssue(file: "features/", path: "$.id", message: error.description)])
        } catch let error as ActionRegistry.ValidationError {
            throw ConfigurationError(issues: [ConfigIssue(file: "actions.json", path: "$", message: error.description)])
        }
    }
}
