import HubEngine
import HubModel
import HubSync

/// Rendered forms of view models, keyed by instance and by the client's component set
/// (`Hub-Components`): with the chain memo, thousands of sessions share one view model, so its
/// JSON, ETag and gzip are computed once per component set.
///
/// Bounded by bytes, not only by count: every entry is charged ``costFactor`` times its JSON
/// size (the view model it keeps alive, the JSON, the gzip), and past ``budgetBytes`` the
/// least recently used entries go until a quarter of the budget is free. A view model shared by
/// sessions (a memo hit) is cached at once; a session's own view model only when it is asked
/// for a second time (a reload, a poll, a second listener): a view that one client sees once
/// never displaces the shared ones. One client adding todo items makes a new view per action,
/// and those are not kept.
final class RenderCache: Sendable {
    /// What an entry costs, as a multiple of its JSON size.
    static let costFactor = 4

    private struct Key: Hashable {
        let model: ObjectIdentifier
        /// The sorted component set the fallback was applied for; empty when none.
        let variant: String
    }

    private struct Entry {
        /// Keeps the identity of `Key.model` unique while cached.
        let model: ViewModel
        let rendered: RenderedView
        let cost: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var totalCost = 0
        var tick: UInt64 = 0
        /// Keys seen once (admission on the second sighting); cleared when full.
        var seenOnce: Set<Key> = []
    }

    private let state = Locked(State())
    /// Each thread's last few hits: an event loop that serves the same views again reads them
    /// here, not under `state`'s lock, which both loops otherwise take on every request
    /// (contended, a futex wait each). The front keeps at most ``frontEntries`` renderings per
    /// stripe alive beyond the budget: 32 over all stripes, charged nowhere.
    private let front = RecentHits<Key, RenderedFront>(capacity: frontEntries)
    /// Hits each thread's front keeps; a full front starts over.
    static let frontEntries = 4

    private struct RenderedFront {
        /// Keeps the identity of `Key.model` unique while in the front.
        let model: ViewModel
        let rendered: RenderedView
    }

    let budgetBytes: Int
    let maximumEntries: Int

    init(budgetBytes: Int = 64 << 20, maximumEntries: Int = 4096) {
        self.budgetBytes = max(1, budgetBytes)
        self.maximumEntries = max(1, maximumEntries)
    }

    /// Entries and their charged bytes now.
    var usage: (entries: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.totalCost) } }

    /// The rendered form of `original` for the component set `variant` (after component
    /// fallback, made by `render` on a miss).
    func rendered(
        _ original: ViewModel, variant: String, shared: Bool, render: () -> RenderedView
    ) -> RenderedView {
        let key = Key(model: ObjectIdentifier(original), variant: variant)
        if let recent = front.value(for: key)?.rendered { return recent }
        enum Lookup { case hit(RenderedView), miss(admit: Bool) }
        let lookup = state.withLock { state -> Lookup in
            if let entry = state.entries[key] {
                state.tick += 1
                state.entries[key]!.lastUse = state.tick
                return .hit(entry.rendered)
            }
            if shared || state.seenOnce.remove(key) != nil { return .miss(admit: true) }
            if state.seenOnce.count >= maximumEntries { state.seenOnce.removeAll(keepingCapacity: true) }
            state.seenOnce.insert(key)
            return .miss(admit: false)
        }
        guard case .miss(let admit) = lookup else {
            if case .hit(let rendered) = lookup {
                front.remember(RenderedFront(model: original, rendered: rendered), for: key)
                return rendered
            }
            return render()
        }
        let rendered = render()
        guard admit else { return rendered }
        let cost = rendered.bytes.count * Self.costFactor
        guard cost <= budgetBytes / 2 else { return rendered }  // one huge view never empties the cache
        state.withLock { state in
            state.tick += 1
            if let old = state.entries.updateValue(
                Entry(model: original, rendered: rendered, cost: cost, lastUse: state.tick), forKey: key)
            {
                state.totalCost -= old.cost
            }
            state.totalCost += cost
            if state.totalCost > budgetBytes || state.entries.count > maximumEntries { evict(&state) }
        }
        return rendered
    }

    /// Drops the renderings of `models` (an invalidation dropped the memo entries that shared
    /// them) and empties every thread's front; returns how many were dropped.
    @discardableResult
    func forget(_ models: [ViewModel]) -> Int {
        guard !models.isEmpty else { return 0 }
        let identities = Set(models.map { ObjectIdentifier($0) })
        let dropped = state.withLock { state -> Int in
            var dropped = 0
            for (key, entry) in state.entries where identities.contains(key.model) {
                state.entries[key] = nil
                state.totalCost -= entry.cost
                dropped += 1
            }
            return dropped
        }
        front.removeAll()
        return dropped
    }

    /// Drops least recently used entries until three quarters of both bounds are left.
    private func evict(_ state: inout State) {
        let targetCost = budgetBytes / 4 * 3
        let targetCount = maximumEntries / 4 * 3
        let byAge = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, entry) in byAge {
            guard state.totalCost > targetCost || state.entries.count > targetCount else { break }
            state.entries[key] = nil
            state.totalCost -= entry.cost
        }
    }
}
