import HubModel
import HubSync

/// Results of full chain runs whose operations are all deterministic given their inputs
/// (every operation returned a memoization key), shared by every session of the engine.
///
/// A hit replaces running the chain with a lookup, and sessions share the snapshots and the
/// built view model, so a hundred thousand sessions of one view hold one copy of it.
/// Bounded by entry count with least-recently-used eviction.
final class ChainMemo: Sendable {
    struct Entry: Sendable {
        let snapshots: [ViewModelBuilder?]
        let errors: [(any Error)?]
        let timings: [OperationTiming]
        var viewModel: ViewModel?

        init(snapshots: [ViewModelBuilder?], errors: [(any Error)?], timings: [OperationTiming]) {
            self.snapshots = snapshots
            self.errors = errors
            // What a session answered from the memo reports: no time spent, marked memoized.
            self.timings = timings.map {
                OperationTiming(name: $0.name, duration: .zero, failed: $0.failed, memoized: true)
            }
        }
    }

    /// The memo key of a full main run: every operation's key plus the inputs every operation
    /// sees (feature, connectivity, the fallback title for the request's languages), or `nil`
    /// when some operation is not memoizable.
    static func key(
        feature: Feature, operations: [any ContentOperation], request: ViewRequest, connectivity: Connectivity,
        sessionID: String
    ) -> String? {
        var key = feature.identifier + "\u{1}" + connectivity.rawValue + "\u{1}" + feature.info.title(for: request.languages)
        for index in operations.indices {
            let context = ContentContext(
                viewURI: request.viewURI, feature: feature.info, connectivity: connectivity, previousError: nil,
                pageIndex: 0, request: request, sessionID: sessionID, operationIndex: index)
            guard let operationKey = operations[index].memoizationKey(context: context) else { return nil }
            key += "\u{1}" + operationKey
        }
        return key
    }

    private struct State {
        var entries: [String: (entry: Entry, lastUse: UInt64)] = [:]
        var tick: UInt64 = 0
    }

    private let state = Locked(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func entry(for key: String) -> Entry? {
        state.withLock { state in
            guard let found = state.entries[key] else { return nil }
            state.tick += 1
            state.entries[key]!.lastUse = state.tick
            return found.entry
        }
    }

    func store(_ entry: Entry, for key: String) {
        state.withLock { state in
            state.tick += 1
            state.entries[key] = (entry, state.tick)
            if state.entries.count > capacity {
                // Evict the least recently used quarter at once: amortized O(1) per store.
                let evictCount = max(1, capacity / 4)
                let victims = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(evictCount)
                for (victim, _) in victims { state.entries[victim] = nil }
            }
        }
    }

    func viewModel(for key: String) -> ViewModel? {
        state.withLock { $0.entries[key]?.entry.viewModel }
    }

    func storeViewModel(_ viewModel: ViewModel, for key: String) {
        state.withLock { state in
            state.entries[key]?.entry.viewModel = viewModel
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
