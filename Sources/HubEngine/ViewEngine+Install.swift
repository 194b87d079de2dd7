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
    /// Live sessions whose chain re-runs on the new definition.
    public var sessionsRerun = 0
    /// Live sessions that ended: no feature serves their view URI any more.
    public var sessionsEnded = 0
    /// Live sessions left as they were.
    public var sessionsUntouched = 0
}

extension ViewEngine {
    /// Installs new features, actions and chain settings (a config reload), atomically: a
    /// request that already found its feature or action finishes on the old definition, any
    /// later one sees the new set.
    ///
    /// Then the chain memo forgets changed and removed features, and every live session
    /// follows: sessions of a changed feature (or whose URI another feature now serves) re-run
    /// their chain from operation 0 with their latest request and push the new view to their
    /// listeners (work already under way finishes first); sessions of unchanged features are
    /// untouched; sessions whose URI no feature serves end (``SessionEndReason/featureRemoved``:
    /// listeners' streams finish, the token answers as deleted). Returns without waiting for
    /// the re-runs.
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
        environment.memo?.forgetAll(except: Set(new.features.map(ChainMemo.tag(of:))))
        for session in sessions.allSessions() {
            switch await session.follow(new) {
            case .untouched: report.sessionsUntouched += 1
            case .rerun: report.sessionsRerun += 1
            case .ended:
                report.sessionsEnded += 1
                sessions.remove(session.id)
            }
        }
        return report
    }
}
