import Foundation
import HubEngine
import HubLogging
import HubMetrics
import HubOperations
import HubPrimitives
import HubSync
import HubUpstream

/// Reloads a running application's config directory (SIGHUP, a watched file change, or
/// ``HubApplication/reloadConfiguration(trigger:)``), one reload at a time.
///
/// A reload loads and validates the whole directory exactly as start-up does. An invalid
/// config is refused: every error is logged with its file and JSON path, and the old config
/// keeps serving. A valid one is installed atomically (``ViewEngine/install(_:)``): features,
/// actions, toggles, schemas and content together; requests in flight finish on the old
/// definitions. Sessions of changed features re-run and push their new view; sessions of a
/// removed feature end. `server.json` keys that cannot change live keep their old value and
/// are logged as needing a restart.
///
/// Counted as Prometheus counts its own reloads: `hub_config_reloads_total{result}`,
/// `hub_config_last_reload_successful` and `hub_config_last_reload_success_timestamp_seconds`.
actor ConfigReloader {
    private let loader: ConfigLoader
    private let extensions: SwiftExtensions
    private let engine: ViewEngine
    private let shared: SharedServices
    private let remote: RemoteServices
    private let logger: JSONLogger
    private let reloads: MetricFamily<Counter>
    private let lastSuccessful: Gauge
    private let lastSuccessTimestamp: Gauge
    private let current: Locked<LoadedConfiguration>

    init(
        configuration: LoadedConfiguration, loader: ConfigLoader, extensions: SwiftExtensions, engine: ViewEngine,
        shared: SharedServices, remote: RemoteServices, logger: JSONLogger
    ) {
        self.current = Locked(configuration)
        self.loader = loader
        self.extensions = extensions
        self.engine = engine
        self.shared = shared
        self.remote = remote
        self.logger = logger
        let metrics = ConfigReloadMetrics(registry: shared.metrics.registry)
        reloads = metrics.reloads
        lastSuccessful = metrics.lastSuccessful
        lastSuccessful.set(1)
        lastSuccessTimestamp = metrics.lastSuccessTimestamp
        lastSuccessTimestamp.set(Int64(Self.epochSeconds()))
    }

    /// The config being served.
    nonisolated var configuration: LoadedConfiguration { current.withLock { $0 } }

    /// Loads the directory again and installs it when valid. `trigger` names the cause in logs.
    func reload(trigger: String) async -> ConfigReloadResult {
        let started = ContinuousClock.now
        let old = configuration
        let loaded: LoadedConfiguration
        let definitions: (features: FeatureRegistry, actions: ActionRegistry)
        do {
            loaded = try loader.load(directory: old.directory)
            definitions = try loaded.makeDefinitions(extensions: extensions, remote: remote, logger: logger)
        } catch let error as ConfigurationError {
            return refuse(error.issues, trigger: trigger)
        } catch {
            return refuse([ConfigIssue(file: old.directory, path: "$", message: "\(error)")], trigger: trigger)
        }
        let changes = ConfigChanges(old: old, new: loaded)
        let settings = changes.effectiveSettings
        let chain = settings.engineConfiguration(chainObserver: nil)
        let report = await engine.install(
            EngineUpdate(
                features: definitions.features, actions: definitions.actions, operationDeadline: chain.operationDeadline,
                componentDefaults: chain.componentDefaults, changedFeatures: changes.changedFeatures))
        var served = loaded
        served.settings = settings
        current.withLock { $0 = served }
        shared.replaceKillSwitches(settings.killSwitches)
        shared.replaceBridge(
            RequestBridge(
                retained: RetainedHeaders(configuration: served, extra: extensions.retainedRequestHeaders),
                locales: served.settings.locales.map(LocaleNegotiator.init), installed: engine.definitionsInstalled))
        reloads.labels("success").increment()
        lastSuccessful.set(1)
        lastSuccessTimestamp.set(Int64(Self.epochSeconds()))
        for warning in loaded.warnings {
            logger.log(.warning, "config", ["file": .string(warning.file), "path": .string(warning.path), "problem": .string(warning.message)])
        }
        if !changes.restartRequired.isEmpty {
            logger.log(
                .warning, "config change needs a restart; the old values stay in effect",
                ["keys": .string(changes.restartRequired.joined(separator: ","))])
        }
        logger.log(
            .info, "config reloaded",
            ["trigger": .string(trigger), "changed": .string(report.changed.joined(separator: ",")),
             "added": .string(report.added.joined(separator: ",")), "removed": .string(report.removed.joined(separator: ",")),
             "sessions_rerun": .int(report.sessionsRerun), "sessions_ended": .int(report.sessionsEnded),
             "duration_ms": .double((ContinuousClock.now - started).inMilliseconds)])
        return ConfigReloadResult(succeeded: true, issues: loaded.warnings, engine: report, restartRequired: changes.restartRequired)
    }

    private func refuse(_ issues: [ConfigIssue], trigger: String) -> ConfigReloadResult {
        reloads.labels("failure").increment()
        lastSuccessful.set(0)
        for issue in issues {
            logger.log(
                issue.severity == .error ? .error : .warning, "config reload refused",
                ["trigger": .string(trigger), "file": .string(issue.file), "path": .string(issue.path),
                 "problem": .string(issue.message)])
        }
        logger.log(
            .error, "config reload refused; the previous config keeps serving",
            ["trigger": .string(trigger), "errors": .int(issues.filter { $0.severity == .error }.count)])
        return ConfigReloadResult(succeeded: false, issues: issues, engine: nil, restartRequired: [])
    }

    private static func epochSeconds() -> Double {
        Date().timeIntervalSince1970
    }
}
