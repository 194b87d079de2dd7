import HubHTTP
import HubMetrics
import HubModel
import HubSync
import Synchronization

/// JSON Patch events for `GET /view/events?patch=json-patch` (docs/API.md "Patches"): the last
/// few views each session's patch listeners were sent (so a reconnect naming one in
/// `Last-Event-ID` gets a patch from there), and the patches between views, each computed once
/// and shared by every listener that needs it.
///
/// Both are bounded: at most ``viewsPerSession`` views per session and client variant, at
/// most ``maximumSessions`` sessions and ``maximumPatches`` patches (past either, the table
/// starts over: a listener whose base is gone gets a full view, never a wrong patch).
final class ViewPatches: Sendable {
    /// One view as a listener was sent it.
    struct View: Sendable {
        /// The event id: the view's ETag without quotes.
        let id: String
        /// The engine's view model (before component fallback: fallback keeps identifiers).
        let model: ViewModel
        let rendered: RenderedView
    }

    /// Whose views: a session, as one client variant renders it.
    struct Key: Hashable, Sendable {
        let session: String
        let variant: String
    }

    private struct PatchKey: Hashable {
        let base: String
        let target: String
        let variant: String
    }

    /// Computes one patch at most once: the first listener computes, the others wait for it.
    private final class Cell: Sendable {
        let event = Locked<EncodedServerSentEvent??>(nil)
    }

    static let viewsPerSession = 4
    static let maximumSessions = 10_000
    static let maximumPatches = 1024

    private let history = Locked<[Key: [View]]>([:])
    private let patches = Locked<[PatchKey: Cell]>([:])
    /// `hub_sse_patches_computed_total`.
    private let computed: Counter

    init(registry: MetricsRegistry) {
        computed = registry.counter(
            "hub_sse_patches_computed_total",
            help: "JSON Patches computed for event streams (each is shared by every listener that sends it).").labels()
    }

    /// Remembers `view` as the newest `key` was sent.
    func remember(_ view: View, for key: Key) {
        history.withLock { history in
            if history[key] == nil && history.count >= Self.maximumSessions { history.removeAll(keepingCapacity: true) }
            var views = history[key, default: []]
            if views.last?.id == view.id { return }
            views.removeAll { $0.id == view.id }
            views.append(view)
            if views.count > Self.viewsPerSession { views.removeFirst() }
            history[key] = views
        }
    }

    /// The recent view of `key` with event id `id`, if still kept.
    func recent(_ id: String, for key: Key) -> View? {
        history.withLock { $0[key]?.last { $0.id == id } }
    }

    /// The `patch` event from `base` to `target` for client `variant` (its id `target`'s, its
    /// data `{"base": "<id>", "patch": [...]}`), encoded once for every listener that sends it,
    /// or `nil` when no patch by identifier exists or it would be larger than the view (send
    /// `event: view` then).
    func patchEvent(from base: View, to target: View, variant: String) -> EncodedServerSentEvent? {
        let key = PatchKey(base: base.id, target: target.id, variant: variant)
        let cell = patches.withLock { patches -> Cell in
            if let cell = patches[key] { return cell }
            if patches.count >= Self.maximumPatches { patches.removeAll(keepingCapacity: true) }
            let cell = Cell()
            patches[key] = cell
            return cell
        }
        // Only listeners of this very change wait here, and only while the first one computes it.
        return cell.event.withLock { event -> EncodedServerSentEvent? in
            if let event { return event }
            let made = Self.makePatchEvent(from: base, to: target).map {
                EncodedServerSentEvent(ServerSentEvent(event: "patch", data: $0, id: target.id))
            }
            computed.increment()
            event = .some(made)
            return made
        }
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
