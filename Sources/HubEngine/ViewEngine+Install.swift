import Synchronization
import HubModel
/// New definitions for a running engine: what a config reload installs (``ViewEngine/install(_:)``).
public struct EngineUpdate: Sendable {
    public var features: FeatureRegistry
    public var actions: ActionRegistry
    public var operationDeadline: Duration
    public var componentDefaults: ComponentDefaults
    /// Identifiers of the features whose definition or content changed. A feature not named
    /// here keeps its revision (its memoized chains and live sessions stay as they are), so
    /// name every feature whose output may differ; a feature new to the engine counts as
    /// changed whether named or not.
    public var changedFeatures: Set<String>

    public init(
        features: FeatureRegistry, actions: ActionRegistry, operationDeadline: Duration,
        componentDefaults: ComponentDefaults, changedFeatures: Set<String>
    ) {
        self.features = features
        self.actions = actions
        self.operationDeadline = operationDeadline
        self.componentDefaults = componentDefaults
        self.changedFeatures = changedFeatures
    }
}

/// What ``ViewEngine/install(_:)`` did.
public struct EngineUpdateReport: Sendable, Equatable {
    /// Features (by identifier) that were changed, added or removed.
    public var changed: [String] = []
    public var added: [String] = []
    public var removed: [String] = []
    /// Live sessions followed over SSE whose chain re-runs at once on the new definition,
    /// through the bounded pool (``ViewEngine/Configuration/maxConcurrentReruns``).
    public var sessionsRerun = 0
    /// Live sessions without listeners whose feature changed: they re-run on their next use.
    public var sessionsStale = 0
    /// Live sessions that ended: no feature serves their view URI any more.
    public var sessionsEnded = 0
    /// Live sessions left as they were.
    public var sessionsUntouched = 0
}

extension ViewEngine {
    /// How many installs have changed the features since the engine started (never an
    /// invalidation). A caller that decides from the config it was given (the HTTP layer's
    /// rollout keys) notes the count it was made for, and trusts its decision only while the
    /// count is the same: whoever reads a generation an install made reads its count too.
    public var definitionsInstalled: Int { definitions.installs }

    /// Installs new features, actions and chain settings (a config reload), atomically: a
    /// request that already found its feature or action finishes on the old definition, any
    /// later one sees the new set.
    ///
    /// Then the chain memo forgets changed and removed features, and live sessions follow,
    /// without a reload ever re-running everything at once:
    /// - sessions whose feature did not change are untouched;
    /// - sessions of a changed feature (or whose URI another feature now serves) are stale: they
    ///   re-run from operation 0 with their latest request on their next use (a published settled
    ///   view of theirs no longer answers); those followed over SSE re-run now instead, through a
    ///   pool of at most ``Configuration/maxConcurrentReruns`` chains, and push the new view;
    /// - sessions whose URI no feature serves end (``SessionEndReason/featureRemoved``: listeners'
    ///   streams finish).
    ///
    /// Returns once sessions are classified, without waiting for the re-runs.
    @discardableResult
    public func install(_ update: EngineUpdate) async -> EngineUpdateReport {
        let old = definitions.replace(
            with: EngineDefinitions.Current(
                features: update.features, actions: update.actions, operationDeadline: update.operationDeadline,
                componentDefaults: update.componentDefaults),
            changed: update.changedFeatures)
        let new = definitions.features
        var report = EngineUpdateReport()
        let oldRevisions = Dictionary(old.features.features.map { ($0.identifier, $0.revision) }) { first, _ in first }
        let newIdentifiers = Set(new.features.map(\.identifier))
        for feature in new.features {
            guard let revision = oldRevisions[feature.identifier] else {
                report.added.append(feature.identifier)
                continue
            }
            if revision != feature.revision { report.changed.append(feature.identifier) }
        }
        report.removed = old.features.features.map(\.identifier).filter { !newIdentifiers.contains($0) }
        guard !report.changed.isEmpty || !report.added.isEmpty || !report.removed.isEmpty else {
            report.sessionsUntouched = sessions.count
            return report
        }
        environment.memo?.forgetAll(except: Set(new.features.map(ChainMemo.tag(of:))))
        // From here on, every session checks its feature on its next use.
        definitions.noteInstall()
        definitions.bumpGeneration()
        var eager: [ViewSession] = []
        for session in sessions.allSessions() {
            let before = old.features.feature(for: session.viewURI)
            let after = new.feature(for: session.viewURI)
            let listened = session.subscriberGauge.load(ordering: .relaxed) > 0
            guard let after else {
                report.sessionsEnded += 1
                if listened { await session.catchUp() }  // ends it: its listeners get the end event
                sessions.remove(session.id)
                continue
            }
            // An access rule the reload added (or narrowed) that refuses the session's user: the
            // session ends here, and its token rebuilds nothing for them (the rule is checked).
            if after.access(for: session.user) != .allowed {
                report.sessionsEnded += 1
                sessions.remove(session.id)
                continue
            }
            if let before, before.identifier == after.identifier, before.revision == after.revision {
                report.sessionsUntouched += 1
            } else if listened {
                report.sessionsRerun += 1
                eager.append(session)
            } else {
                report.sessionsStale += 1
            }
        }
        rerunEagerly(eager)
        return report
    }

    /// Re-runs `sessions` (followed over SSE) through a pool of at most
    /// ``Configuration/maxConcurrentReruns`` chains at once, in the background.
    private func rerunEagerly(_ sessions: [ViewSession]) {
        runPaced(sessions) { _ = await $0.rerunForReload() }
    }

    /// Runs `rerun` for each of `sessions` through a pool of at most
    /// ``Configuration/maxConcurrentReruns`` at once, in the background (a reload's and an
    /// invalidation's eager re-runs).
    func runPaced(_ sessions: [ViewSession], _ rerun: @escaping @Sendable (ViewSession) async -> Void) {
        guard !sessions.isEmpty else { return }
        let limit = max(1, configuration.maxConcurrentReruns)
        Task {
            await withTaskGroup(of: Void.self) { group in
                var pending = sessions.makeIterator()
                for _ in 0..<limit {
                    guard let session = pending.next() else { break }
                    group.addTask { await rerun(session) }
                }
                while await group.next() != nil {
                    guard let session = pending.next() else { continue }
                    group.addTask { await rerun(session) }
                }
            }
        }
    }
}
