import Foundation
import HubOperations
import HubPrimitives

/// What changed between the config a server runs and a newly loaded one: which features'
/// output may differ, which `server.json` keys changed but apply only at the next start, and
/// the settings to run with.
package struct ConfigChanges {
    /// Features (by identifier) whose definition or content changed: their sessions re-run.
    package var changedFeatures: Set<String> = []
    /// `server.json` keys that changed but cannot change live; they keep their old value.
    package var restartRequired: [String] = []
    /// The new settings that apply live, the old values of the rest.
    package var effectiveSettings: ServerSettings

    package init(old: LoadedConfiguration, new: LoadedConfiguration) {
        effectiveSettings = old.settings.applyingLiveSettings(of: new.settings)
        restartRequired = old.settings.restartOnlyDifferences(from: new.settings)
        // What every feature reads: toggles, schemas and the chain settings.
        let everyFeatureChanged =
            Self.sharedDigest(old) != Self.sharedDigest(new)
            || !old.settings.hasSameChainSettings(as: new.settings)
        let oldFeatures = Dictionary(old.features.map { ($0.identifier, $0) }) { first, _ in first }
        for feature in new.features {
            guard let previous = oldFeatures[feature.identifier] else { continue }  // new: changed by definition
            if everyFeatureChanged || Self.digest(of: previous, in: old) != Self.digest(of: feature, in: new)
            {
                changedFeatures.insert(feature.identifier)
            }
        }
    }

    /// One digest over a feature's file, every file it reads and every directory a templated
    /// `file:` URL of it reads under (as they were when `configuration` was loaded).
    package static func digest(of feature: FeatureDefinition, in configuration: LoadedConfiguration) -> [UInt64] {
        ([feature.file] + feature.sources).map { file in
            if let recorded = configuration.fileDigests[file] { return recorded }
            let path = file.hasPrefix("/") ? file : (configuration.directory as NSString).appendingPathComponent(file)
            return FileManager.default.contents(atPath: path).map { FNV1a.hash($0) } ?? 0
        }
            + feature.templatedDirectories.map { directory in
                configuration.fileDigests[DirectoryDigest.key(directory)]
                    ?? DirectoryDigest.digest(directory, in: configuration.directory)
            }
    }

    /// The digests of the files every feature may read: `toggles.json`, `schemas/` and the
    /// string catalogs (`strings/`).
    package static func sharedDigest(_ configuration: LoadedConfiguration) -> [String: UInt64] {
        configuration.fileDigests.filter {
            $0.key == "toggles.json" || $0.key.hasPrefix("schemas/") || $0.key.hasPrefix(StringCatalogs.directory + "/")
        }
    }
}

extension ServerSettings {
    /// These settings with the values of `new` for everything a running server applies live:
    /// the chain settings (``hasSameChainSettings(as:)``, `locales` among them) and the kill switches (applied per
    /// response, so no chain re-runs for them). Every other key keeps its value.
    package func applyingLiveSettings(of new: ServerSettings) -> ServerSettings {
        var settings = self
        settings.components = new.components
        settings.killSwitches = new.killSwitches
        settings.timeouts.operationSeconds = new.timeouts.operationSeconds
        settings.upstream.timeoutMs = new.upstream.timeoutMs
        settings.allowToggleOverride = new.allowToggleOverride
        settings.locales = new.locales
        return settings
    }

    /// Whether the settings content operations are built with are the same: component
    /// defaults, the operation deadline, the upstream timeout, toggle overrides and the locales.
    package func hasSameChainSettings(as other: ServerSettings) -> Bool {
        components == other.components && timeouts.operationSeconds == other.timeouts.operationSeconds
            && upstream.timeoutMs == other.upstream.timeoutMs && allowToggleOverride == other.allowToggleOverride
            && locales == other.locales
    }

    /// The `server.json` keys whose value differs in `new` and that only a restart applies
    /// (the listen address, limits, caches, logging, ...), in file order.
    package func restartOnlyDifferences(from new: ServerSettings) -> [String] {
        let live = applyingLiveSettings(of: new)
        var keys: [String] = []
        if live.host != new.host { keys.append("host") }
        if live.port != new.port { keys.append("port") }
        if live.connectionBalancing != new.connectionBalancing { keys.append("connectionBalancing") }
        if live.limits != new.limits { keys.append("limits") }
        if live.timeouts != new.timeouts { keys.append("timeouts") }
        if live.sessions != new.sessions { keys.append("sessions") }
        if live.caches != new.caches { keys.append("caches") }
        if live.upstream != new.upstream { keys.append("upstream") }
        if live.gzip != new.gzip { keys.append("gzip") }
        if live.logLevel != new.logLevel || live.logFormat != new.logFormat || live.accessLog != new.accessLog {
            keys.append("log")
        }
        if live.cors != new.cors { keys.append("cors") }
        if live.reload != new.reload { keys.append("reload") }
        if live.previewEnabled != new.previewEnabled { keys.append("preview") }
        if live.explainEnabled != new.explainEnabled { keys.append("debug") }
        if live.identity != new.identity { keys.append("identity") }
        if live.invalidation != new.invalidation { keys.append("invalidation") }
        return keys
    }
}
