import Foundation
import HubEngine
import HubHTTP
import HubLogging
import HubMetrics
import HubModel
import HubOperations
import HubUpstream

extension HubApplication {
    // MARK: - Building

    static func makeEngine(
        configuration: LoadedConfiguration, extensions: SwiftExtensions, remote: RemoteServices, metrics: ServerMetrics,
        logger: JSONLogger? = nil, keys: SessionKeys, stateStore: any StateStore = MemoryStateStore()
    ) throws -> ViewEngine {
        let settings = configuration.settings
        let (features, actions) = try configuration.makeDefinitions(extensions: extensions, remote: remote, logger: logger)
        let engineConfiguration = settings.engineConfiguration(keys: keys, stateStore: stateStore) { report in
            // A memo hit ran nothing: counted apart, so the duration histogram shows runs only.
            if !report.timings.isEmpty, report.timings.allSatisfy(\.memoized) {
                metrics.chainMemoHits.labels(report.featureIdentifier).increment()
                return
            }
            var total = Duration.zero
            for timing in report.timings where !timing.memoized {
                total += timing.duration
                metrics.operationDuration.labels(report.featureIdentifier, timing.name).observe(timing.duration)
                if timing.failed { metrics.operationErrors.labels(report.featureIdentifier, timing.name).increment() }
            }
            metrics.chainDuration.labels(report.featureIdentifier).observe(total)
        }
        var configured = engineConfiguration
        let loops = metrics.stateRerunLoops
        configured.stateLoopObserver = { loop in
            loops.labels(loop.featureIdentifier).increment()
            logger?.log(
                .warning, "state changes re-ran a chain in a loop: re-runs paused",
                [
                    "feature": .string(loop.featureIdentifier), "operation": .string(loop.operationName),
                    "key": .string(loop.key),
                    "hint": .string(
                        "an operation writes state that another session's operations read, and theirs write what it reads; write state in actions (docs/EMBEDDING.md)"),
                ])
        }
        return ViewEngine(features: features, actions: actions, configuration: configured)
    }
}

extension HubApplication {
    /// The loop that keeps revocations in step with the state store: loads them, retrying
    /// every 100 ms to 1 s until the store answers (until then a shared store's replica answers
    /// tokens it does not hold with 503 `state_unavailable`), then, once a second, writes the
    /// revocations that waited for the store (``ViewEngine/flushRevocations()``). A shared
    /// store's change feed does both too, as soon as it connects.
    static func recoverRevocations(engine: ViewEngine, logger: JSONLogger) -> Task<Void, Never> {
        Task.detached {
            var delay = Duration.milliseconds(100)
            var warned = false
            // The engine's flag may start set (a local store): the store's records are read once anyway.
            var loaded = false
            while !Task.isCancelled {
                if !loaded {
                    do {
                        try await engine.loadRevocations()
                        loaded = true
                        if warned { logger.log(.info, "state store", ["revocations": .string("loaded")]) }
                    } catch {
                        if !warned {
                            logger.log(.warning, "state store", ["problem": .string("revocations not loaded yet (retrying): \(error)")])
                            warned = true
                        }
                    }
                }
                if loaded, engine.pendingRevocations > 0 { await engine.flushRevocations() }
                let settled = loaded && engine.pendingRevocations == 0
                try? await Task.sleep(for: settled ? .seconds(1) : delay)
                delay = settled ? .milliseconds(100) : min(delay * 2, .seconds(1))
            }
        }
    }
}
