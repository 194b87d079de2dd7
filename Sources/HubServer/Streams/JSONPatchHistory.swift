import HubHTTP
import HubMetrics
import HubModel
import HubSync
import Synchronization

/// JSON Patch events for `GET /view/events?patch=json-patch` (docs/API.md "Patches"): the last
/// few views each session's patch listeners were sent (so a reconnect naming one in
/// `Last-Event-ID` gets a patch from there), and the patches between them, each computed once
/// and shared by the listeners of that session and client variant, never by another session.
///
/// Bounded per client and in all: at most ``viewsPerKey`` views and ``patchesPerKey`` patches
/// per session and variant, at most ``variantsPerSession`` variants per session (a further
/// variant's listener gets full views and keeps no history), and at most `budgetBytes`
/// (`limits.patchHistoryBytes`) in all, least recently used out (a listener whose base is gone
/// gets a full view, never a wrong patch). A session's entries go when its last patch listener
/// leaves (its streams end when the session ends: revoked, evicted, expired). The estimate is
/// `hub_patch_history_bytes`.
final class JSONPatchHistory: Sendable {
    /// One view as a listener was sent it.
    struct View: Sendable {
        /// The event id: the view's keyed ETag without quotes (``ViewTags``).
        let id: String
        /// The engine's view model (before component fallback: fallback keeps identifiers).
        let model: ViewModel
        let rendered: RenderedView
        /// What keeping it costs: its JSON, its model's estimate, the entry.
        let bytes: Int

        init(id: String, model: ViewModel, rendered: RenderedView) {
            self.id = id
            self.model = model
            self.rendered = rendered
            bytes = rendered.bytes.count + model.estimatedMemoryBytes + 2 * id.utf8.count + 64
        }
    }

    /// Whose views: a session, as one client variant renders it.
    struct Key: Hashable, Sendable {
        let session: String
        let variant: String
    }

    /// Computes one patch at most once: the first listener computes, the others wait for it.
    private final class Cell: Sendable {
        let event = Locked<EncodedServerSentEvent??>(nil)
    }

    /// One key's views and patches, and its place in the least-recently-used list.
    private struct Entry {
        var views: [View] = []
        var patches: [(base: String, target: String, cell: Cell)] = []
        var bytes = JSONPatchHistory.entryBytes
        var older: Key?
        var newer: Key?
    }

    /// Everything, under one lock (each operation is O(1) but for a session's own entries).
    private struct Table {
        var entries: [Key: Entry] = [:]
        /// The variants each session keeps, and its patch listeners.
        var variants: [String: [String]] = [:]
        var listeners: [String: Int] = [:]
        var oldest: Key?
        var newest: Key?
        var bytes = 0
    }

    static let viewsPerKey = 4
    static let patchesPerKey = 4
    static let variantsPerSession = 4
    /// What an entry costs besides its views and patches (keys, dictionary slots, links).
    static let entryBytes = 512

    private let table = Locked(Table())
    /// `limits.patchHistoryBytes`.
    let budgetBytes: Int
    /// `hub_sse_patches_computed_total`.
    private let computed: Counter
    /// `hub_patch_history_bytes`.
    private let bytesGauge: Gauge

    init(registry: MetricsRegistry, budgetBytes: Int) {
        self.budgetBytes = budgetBytes
        computed = StreamMetrics.patchesComputed(on: registry)
        bytesGauge = StreamMetrics.patchHistoryBytes(on: registry)
    }

    /// Bytes kept now (``hub_patch_history_bytes``).
    var bytes: Int { table.withLock { $0.bytes } }

    /// A patch listener of `session` opened.
    func join(session: String) {
        table.withLock { $0.listeners[session, default: 0] += 1 }
    }

    /// A patch listener of `session` closed: with its last one, the session's entries go.
    func leave(session: String) {
        let total = table.withLock { table -> Int in
            let left = (table.listeners[session] ?? 1) - 1
            guard left <= 0 else {
                table.listeners[session] = left
                return table.bytes
            }
            table.listeners[session] = nil
            for variant in table.variants[session] ?? [] { Self.remove(Key(session: session, variant: variant), from: &table) }
            return table.bytes
        }
        bytesGauge.set(Int64(total))
    }

    /// Remembers `view` as the newest `key` was sent; `false` when `key` keeps no history (its
    /// session keeps ``variantsPerSession`` other variants, or has no patch listener): its
    /// listener then sends full views.
    @discardableResult
    func remember(_ view: View, for key: Key) -> Bool {
        let (kept, total) = table.withLock { table -> (Bool, Int) in
            guard table.listeners[key.session] != nil else { return (false, table.bytes) }
            var entry: Entry
            if let existing = table.entries[key] {
                entry = existing
                Self.unlink(key, from: &table)
            } else {
                guard (table.variants[key.session]?.count ?? 0) < Self.variantsPerSession else { return (false, table.bytes) }
                table.variants[key.session, default: []].append(key.variant)
                entry = Entry()
            }
            let before = table.entries[key]?.bytes ?? 0
            if entry.views.last?.id != view.id {
                for old in entry.views where old.id == view.id { entry.bytes -= old.bytes }
                entry.views.removeAll { $0.id == view.id }
                entry.views.append(view)
                entry.bytes += view.bytes
                if entry.views.count > Self.viewsPerKey { entry.bytes -= entry.views.removeFirst().bytes }
            }
            table.bytes += entry.bytes - before
            table.entries[key] = entry
            Self.link(key, in: &table)
            Self.evict(&table, budget: budgetBytes)
            return (table.entries[key] != nil, table.bytes)
        }
        bytesGauge.set(Int64(total))
        return kept
    }

    /// The recent view of `key` with event id `id`, if still kept.
    func recent(_ id: String, for key: Key) -> View? {
        table.withLock { $0.entries[key]?.views.last { $0.id == id } }
    }

    /// The `patch` event from `base` to `target` for `key` (its id `target`'s, its data
    /// `{"base": "<id>", "patch": [...]}`), encoded once for the listeners of this session and
    /// variant, or `nil` when `key` keeps no history, no patch by identifier exists or it would
    /// be larger than the view (send `event: view` then).
    func patchEvent(from base: View, to target: View, for key: Key) -> EncodedServerSentEvent? {
        let found = table.withLock { table -> Cell? in
            guard var entry = table.entries[key] else { return nil }
            if let cell = entry.patches.first(where: { $0.base == base.id && $0.target == target.id })?.cell { return cell }
            let cell = Cell()
            entry.patches.append((base.id, target.id, cell))
            if entry.patches.count > Self.patchesPerKey {
                let dropped = entry.patches.removeFirst().cell
                let droppedBytes = dropped.event.withLock { Self.cost($0) }
                entry.bytes -= droppedBytes
                table.bytes -= droppedBytes
            }
            table.entries[key] = entry
            return cell
        }
        guard let cell = found else { return nil }
        // Only listeners of this very change wait here, and only while the first one computes it.
        var added = 0
        let made = cell.event.withLock { event -> EncodedServerSentEvent? in
            if let event { return event }
            let made = Self.makePatchEvent(from: base, to: target).map {
                EncodedServerSentEvent(ServerSentEvent(event: "patch", data: $0, id: target.id))
            }
            computed.increment()
            event = .some(made)
            added = Self.cost(event)
            return made
        }
        if added > 0 { account(added, for: cell, of: key) }
        return made
    }

    /// Adds a computed patch's bytes to its entry, when the entry still keeps that cell.
    private func account(_ added: Int, for cell: Cell, of key: Key) {
        let total = table.withLock { table -> Int in
            guard var entry = table.entries[key], entry.patches.contains(where: { $0.cell === cell }) else { return table.bytes }
            entry.bytes += added
            table.bytes += added
            table.entries[key] = entry
            Self.evict(&table, budget: budgetBytes)
            return table.bytes
        }
        bytesGauge.set(Int64(total))
    }

    /// What a computed patch costs (its encoded bytes), 0 before it is computed.
    private static func cost(_ event: EncodedServerSentEvent??) -> Int {
        guard case .some(.some(let event)) = event else { return 0 }
        return event.byteCount + 64
    }

    // MARK: - Least recently used

    private static func evict(_ table: inout Table, budget: Int) {
        while table.bytes > budget, let oldest = table.oldest { remove(oldest, from: &table) }
    }

    private static func remove(_ key: Key, from table: inout Table) {
        guard let entry = table.entries[key] else { return }
        unlink(key, from: &table)
        table.entries[key] = nil
        table.bytes -= entry.bytes
        table.variants[key.session]?.removeAll { $0 == key.variant }
        if table.variants[key.session]?.isEmpty == true { table.variants[key.session] = nil }
    }

    /// Takes `key` out of the list (its entry stays).
    private static func unlink(_ key: Key, from table: inout Table) {
        guard let entry = table.entries[key] else { return }
        if let older = entry.older { table.entries[older]?.newer = entry.newer } else { table.oldest = entry.newer }
        if let newer = entry.newer { table.entries[newer]?.older = entry.older } else { table.newest = entry.older }
        table.entries[key]?.older = nil
        table.entries[key]?.newer = nil
    }

    /// Puts `key` (whose entry is stored and unlinked) at the newest end.
    private static func link(_ key: Key, in table: inout Table) {
        table.entries[key]?.older = table.newest
        table.entries[key]?.newer = nil
        if let newest = table.newest { table.entries[newest]?.newer = key } else { table.oldest = key }
        table.newest = key
    }

    private static func makePatchEvent(from base: View, to target: View) -> String? {
        let parser = JSONParser(options: .init(maxDepth: 4096))
        guard let old = try? parser.parse(base.rendered.bytes), let new = try? parser.parse(target.rendered.bytes),
            let patch = ViewPatch(from: base.model, old, to: target.model, new)
        else { return nil }
        let event = JSONValue.object(JSONObject([("base", .string(base.id)), ("patch", patch.json)]))
        let bytes = event.jsonBytes
        guard bytes.count < target.rendered.bytes.count else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
