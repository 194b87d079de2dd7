import HubModel
import HubSync
import Synchronization

/// What an engine serves now: its features, actions and chain settings. A config reload
/// (``ViewEngine/install(_:)``) replaces them as a whole, under one lock, so a request sees
/// either the old set or the new one, never a mix.
///
/// Sessions read the actions and chain settings through here at the moment they use them; the
/// feature and operations a session runs are its own (``ViewSession``), replaced only when
/// its feature changed.
final class EngineDefinitions: Sendable {
    struct Current: Sendable {
        var features: FeatureRegistry
        var actions: ActionRegistry
        var operationDeadline: Duration
        var componentDefaults: ComponentDefaults
    }

    private struct State {
        var current: Current
        /// The last revision handed out (features start at revision 1).
        var lastRevision: UInt64
    }

    private let state: Locked<State>
    /// Bumped after every install that changed, added or removed a feature: a session whose
    /// ``ViewSession`` last checked its feature at an older generation checks again on its next
    /// use (a published ``SettledView`` of an older generation answers nothing).
    private let generationCounter = Atomic<Int>(0)

    /// The current generation (see ``bumpGeneration()``).
    var generation: Int { generationCounter.load(ordering: .acquiring) }

    /// Marks every session's view as to be checked against the definitions installed now.
    func bumpGeneration() {
        generationCounter.add(1, ordering: .releasing)
    }

    /// Counts installs that changed the features (``noteInstall()``), never invalidations.
    private let installCounter = Atomic<Int>(0)

    /// Installs that changed the features so far.
    var installs: Int { installCounter.load(ordering: .acquiring) }

    /// Notes an install that changes the features: called before ``bumpGeneration()``, so that
    /// whoever reads the new generation reads the new count too.
    func noteInstall() {
        installCounter.add(1, ordering: .releasing)
    }

    init(_ definitions: Current) {
        var revision: UInt64 = 0
        var stamped = definitions
        stamped.features = Self.stamp(definitions.features, keeping: [:]) {
            revision += 1
            return revision
        }
        state = Locked(State(current: stamped, lastRevision: revision))
    }

    var features: FeatureRegistry { state.withLock { $0.current.features } }
    var actions: ActionRegistry { state.withLock { $0.current.actions } }
    var operationDeadline: Duration { state.withLock { $0.current.operationDeadline } }
    var componentDefaults: ComponentDefaults { state.withLock { $0.current.componentDefaults } }

    /// Installs `new`: a feature named in `changed`, or new, gets a fresh revision; the others
    /// keep theirs (so their memoized chains and sessions stay valid). Returns what was
    /// replaced.
    func replace(with new: Current, changed: Set<String>) -> Current {
        state.withLock { state in
            var kept: [String: UInt64] = [:]
            for feature in state.current.features.features where !changed.contains(feature.identifier) {
                kept[feature.identifier] = feature.revision
            }
            var stamped = new
            var revision = state.lastRevision
            stamped.features = Self.stamp(new.features, keeping: kept) {
                revision += 1
                return revision
            }
            state.lastRevision = revision
            let old = state.current
            state.current = stamped
            return old
        }
    }

    private static func stamp(
        _ registry: FeatureRegistry, keeping kept: [String: UInt64], next: () -> UInt64
    ) -> FeatureRegistry {
        registry.replacingFeatures { feature in
            var stamped = feature
            stamped.revision = kept[feature.identifier] ?? next()
            return stamped
        }
    }
}
