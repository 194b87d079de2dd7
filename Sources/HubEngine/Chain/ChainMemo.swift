import HubModel
import HubSync

/// Results of full chain runs whose operations are all deterministic given their inputs
/// (every operation returned a memoization key), shared by every session of the engine.
///
/// A hit replaces running the chain with a lookup, and sessions share the snapshots and the
/// built view model, so a hundred thousand sessions of one view hold one copy of it.
/// Bounded by entry count and by bytes, with least-recently-used eviction: each entry is
/// charged ``costFactor`` times the JSON size of its view model (the snapshots and the model
/// it keeps), so memoizable chains whose keys a client can vary (`{query.*}` in a remote
/// URL) cannot fill memory with distinct large views.
final class ChainMemo: Sendable {
    struct Entry: Sendable {
        let snapshots: Snapshots
        let errors: OperationErrors
        let timings: [OperationTiming]
        var viewModel: ViewModel?
        /// The key it is stored under (set by ``ChainMemo/store(_:for:)``): sessions keep this
        /// instance, so a hundred thousand sessions of one view share one key string.
        var key = ""
        /// The upstream content the run built from (``ContentSources``): what an invalidation
        /// matches it by.
        var use: ContentUse?

        init(snapshots: Snapshots, errors: OperationErrors, timings: [OperationTiming]) {
            self.snapshots = snapshots
            self.errors = errors
            // What a session answered from the memo reports: no time spent, marked memoized.
            self.timings = timings.map(\.asMemoized)
        }
    }

    /// The memo key of a full main run: every operation's key plus the inputs every operation
    /// sees (feature, connectivity, the fallback title for the request's languages, the negotiated
    /// locale), or `nil`
    /// when some operation is not memoizable.
    /// `sessionIDReads` notes whether an operation's key read the session identifier.
    static func key(
        feature: Feature, operations: [any ContentOperation], request: ViewRequest, connectivity: Connectivity,
        sessionID: String, sessionIDReads: SessionIDReads? = nil
    ) -> String? {
        var unwanted = MemoKeyChecks.Collector(wanted: false)
        return key(
            feature: feature, operations: operations, request: request, connectivity: connectivity, sessionID: sessionID,
            sessionIDReads: sessionIDReads, checks: &unwanted)
    }

    /// ``key(feature:operations:request:connectivity:sessionID:sessionIDReads:)``, collecting in
    /// `checks` (when it wants them) what keeps the key valid: each operation is asked for its key
    /// and lifetime together (``ContentOperation/memoizationKeyAndLifetime(context:)``: the
    /// lifetime first by default, so that a key that changes in between fails its check later,
    /// never the other way round).
    static func key(
        feature: Feature, operations: [any ContentOperation], request: ViewRequest, connectivity: Connectivity,
        sessionID: String, sessionIDReads: SessionIDReads?, checks: inout MemoKeyChecks.Collector
    ) -> String? {
        // One buffer appended in place (this runs on every `GET /view?uri=`): the same text as
        // tag + "\u{1}" + connectivity + "\u{1}" + title + ("\u{1}" + operation key)...
        var key = ""
        // Room for a chain of a few operations with a remote one (its URL and fingerprint) in
        // one allocation.
        key.reserveCapacity(256)
        key.append(feature.identifier)
        key.append("#")
        key.append(String(feature.revision))
        key.append("\u{1}")
        key.append(connectivity.rawValue)
        key.append("\u{1}")
        key.append(feature.info.title(for: request.contentLanguages))
        // The negotiated locale (a bounded set, never the raw header): catalog strings, `{locale}`
        // URLs, `sendLocale` upstreams and Swift operations may read it, so runs are shared only
        // by requests of one locale.
        if let locale = request.locale {
            key.append("\u{1}locale:")
            key.append(locale)
        }
        // Whether a key read the user: noted here when the caller notes nothing.
        let reads = request.user == nil ? sessionIDReads : (sessionIDReads ?? SessionIDReads())
        // One context for the chain, moved from operation to operation (a context holds a
        // reference to every field it names).
        var context = keyContext(
            feature: feature, request: request, connectivity: connectivity, sessionID: sessionID, operationIndex: 0,
            sessionIDReads: reads)
        for index in operations.indices {
            context.operationIndex = index
            let operationKey: String?
            if checks.wanted {
                let (key, lifetime) = operations[index].memoizationKeyAndLifetime(context: context)
                checks.add(lifetime)
                operationKey = key
            } else {
                operationKey = operations[index].memoizationKey(context: context)
            }
            guard let operationKey else { return nil }
            key.append("\u{1}")
            key.append(operationKey)
        }
        // A chain that reads the user (its placeholders, forwardIdentity, a key that read
        // `context.user`) or serves only users (an access rule) is memoized per user; the
        // rest stay shared by everyone.
        if let user = request.user, feature.readsUser || feature.access != nil || reads?.userHappened == true {
            key.append("\u{1}user:")
            key.append(user.digest)
        }
        return key
    }

    /// The context an operation's key (and its lifetime) is asked in: a full main run's, with no
    /// action performer and state nobody keeps (a key is made before anything runs).
    static func keyContext(
        feature: Feature, request: ViewRequest, connectivity: Connectivity, sessionID: String, operationIndex: Int,
        sessionIDReads: SessionIDReads? = nil
    ) -> ContentContext {
        ContentContext(
            viewURI: request.viewURI, feature: feature.info, connectivity: connectivity, previousError: nil,
            pageIndex: 0, request: request, sessionID: sessionID, operationIndex: operationIndex, actions: .none,
            state: keyState, sessionIDReads: sessionIDReads)
    }

    /// The state of ``keyContext(feature:request:connectivity:sessionID:operationIndex:sessionIDReads:)``:
    /// one for every key (the context's default would make a store per operation per request),
    /// holding nothing and refusing writes.
    private static let keyState = StateAccess(store: MemoryStateStore(maxEntries: 0), sessionID: "")

    /// The part of a key that names the feature and its revision (a reload that changes the
    /// feature changes it, so an old run finishing after the reload cannot serve the new one).
    static func tag(of feature: Feature) -> String {
        feature.identifier + "#" + String(feature.revision)
    }

    /// Drops every entry whose feature tag (``tag(of:)``) is not in `live`: features removed
    /// or changed by a reload.
    func forgetAll(except live: Set<String>) {
        state.withLock { state in
            for (key, value) in state.entries {
                let tag = key.prefix { $0 != "\u{1}" }
                if !live.contains(String(tag)) {
                    state.entries[key] = nil
                    state.totalCost -= value.cost
                }
            }
        }
    }

    /// What an entry costs, as a multiple of its view model's JSON size.
    static let costFactor = 3

    private struct State {
        var entries: [String: (entry: Entry, lastUse: UInt64, cost: Int)] = [:]
        var totalCost = 0
        var tick: UInt64 = 0
        /// Counts invalidations (``forget(matching:features:)``): a run that began before one
        /// stores nothing (``store(_:for:ifGeneration:)``).
        var generation = 0
    }

    private let state = Locked(State())
    /// Each thread's last few hits (with their view models): every event loop starting views of
    /// a memoized chain reads them here, not under `state`'s lock, which the loops otherwise
    /// contend for on every `GET /view?uri=`. The front keeps at most ``frontEntries`` entries
    /// per stripe alive after `state` dropped them (32 over all stripes); keys name the
    /// feature's revision and every operation's input, so a kept entry is never a stale answer.
    private let front = RecentHits<String, Entry>(capacity: frontEntries)
    /// Hits each thread's front keeps; a full front starts over.
    static let frontEntries = 4
    let capacity: Int
    let budgetBytes: Int

    init(capacity: Int, budgetBytes: Int = 64 << 20) {
        self.capacity = max(1, capacity)
        self.budgetBytes = max(1, budgetBytes)
    }

    /// Entries and their charged bytes now.
    var usage: (entries: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.totalCost) } }

    func entry(for key: String) -> Entry? {
        if let recent = front.value(for: key) { return recent }
        return state.withLock { state -> Entry? in
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.tick += 1
            state.entries.values[index].lastUse = state.tick
            let entry = state.entries.values[index].entry
            // Only entries with their shared view model: what the fast path of a start needs.
            // Remembered under the lock, so an invalidation that empties the fronts under it
            // cannot miss an entry being remembered.
            if entry.viewModel != nil { front.remember(entry, for: key) }
            return entry
        }
    }

    func store(_ entry: Entry, for key: String) {
        state.withLock { state in
            state.tick += 1
            var entry = entry
            entry.key = key
            if let old = state.entries.updateValue((entry, state.tick, 0), forKey: key) { state.totalCost -= old.cost }
            if state.entries.count > capacity { evict(&state) }
        }
    }

    /// Evicts least recently used entries until three quarters of both bounds are left: one
    /// sort per quarter of the capacity, amortized O(log n) per store.
    private func evict(_ state: inout State) {
        let targetCount = max(1, capacity / 4 * 3)
        let targetCost = budgetBytes / 4 * 3
        for (victim, value) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.entries.count > targetCount || state.totalCost > targetCost else { break }
            state.entries[victim] = nil
            state.totalCost -= value.cost
        }
    }

    func viewModel(for key: String) -> ViewModel? {
        state.withLock { $0.entries[key]?.entry.viewModel }
    }

    /// Keeps the view model built from the entry's snapshots; charges the entry for its size.
    /// A model too large for half the budget is not shared (sessions build their own).
    func storeViewModel(_ viewModel: ViewModel, for key: String) {
        let cost = viewModel.jsonBytes(capacityHint: 32 * 1024).count * Self.costFactor
        state.withLock { state in
            guard state.entries[key] != nil else { return }
            guard cost <= budgetBytes / 2 else {
                state.totalCost -= state.entries.removeValue(forKey: key)?.cost ?? 0
                return
            }
            state.entries[key]!.entry.viewModel = viewModel
            state.totalCost += cost - state.entries[key]!.cost
            state.entries[key]!.cost = cost
            if state.totalCost > budgetBytes { evict(&state) }
        }
    }

    var count: Int { state.withLock { $0.entries.count } }

    /// The invalidation count now: pass it to ``store(_:for:ifGeneration:)`` for a run starting now.
    var generation: Int { state.withLock { $0.generation } }

    /// Stores `entry` unless an invalidation happened since `generation` was read (the run may
    /// have built from content it named); returns whether it did.
    func store(_ entry: Entry, for key: String, ifGeneration generation: Int) -> Bool {
        guard self.generation == generation else { return false }
        store(entry, for: key)
        return true
    }

    /// Drops every entry `invalidation` matches (content it used, or its feature's identifier in
    /// `invalidation.features`), and empties every thread's front; returns the view models of
    /// the dropped entries (their renderings can go too).
    func forget(matching invalidation: ContentInvalidation) -> [ViewModel?] {
        state.withLock { state in
            state.generation += 1
            var dropped: [ViewModel?] = []
            for (key, value) in state.entries {
                let matched = value.entry.use.map(invalidation.matches) ?? false
                    || (!invalidation.features.isEmpty && invalidation.features.contains(Self.featureIdentifier(ofKey: key)))
                guard matched else { continue }
                state.entries[key] = nil
                state.totalCost -= value.cost
                dropped.append(value.entry.viewModel)
            }
            front.removeAll()
            return dropped
        }
    }

    /// The feature identifier a key starts with (``tag(of:)`` without the revision).
    static func featureIdentifier(ofKey key: String) -> String {
        let tag = key.prefix { $0 != "\u{1}" }
        guard let hash = tag.lastIndex(of: "#") else { return String(tag) }
        return String(tag[..<hash])
    }
}
