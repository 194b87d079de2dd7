import HubEngine
import HubModel
import HubSync

/// The rendering each session's listeners send now, shared: every listener of a session wakes
/// with the same view model when it changes, and the first to render it (component fallback,
/// JSON, ETag) renders for all, so its `event: view` (``RenderedView/viewEvent(encoded:)``) is
/// encoded once however many listeners follow the session. (A session's only listener renders
/// for itself: the events endpoint asks here only while a session has more than one.) The render cache alone would
/// render a session's own view twice (it admits one on its second sighting) and more when
/// listeners race it.
///
/// Nothing is kept alive here: a slot holds its view model and rendering weakly (each
/// listener holds the rendering it sent until its next one). At most ``maximumSlots`` slots,
/// past which the table starts over (a listener then renders once more, never wrongly), and at
/// most ``variantsPerSession`` per session: a listener of a further client variant renders for
/// itself (one client opening streams with ever new `Hub-Components` values keeps no slots).
final class ListenerRenderings: Sendable {
    /// Whose listeners: a session, as one client variant renders it.
    struct Key: Hashable, Sendable {
        let session: String
        let variant: String
    }

    private struct Made: Sendable {
        weak var model: ViewModel?
        weak var rendered: RenderedView?
    }

    /// One session's (and variant's) newest rendering; its lock is held while it is made, so
    /// only listeners of this session wait, and only for this change.
    private final class Slot: Sendable {
        let made = Locked(Made())
    }

    static let maximumSlots = 65_536
    static let variantsPerSession = 4

    private struct Table {
        var slots: [Key: Slot] = [:]
        /// Slots per session.
        var variants: [String: Int] = [:]
    }

    private let table = Locked(Table())

    /// Slots now (sessions with a listener since the table last started over).
    var count: Int { table.withLock { $0.slots.count } }

    /// The rendering of `model` for `key`'s listeners: the one another listener of `key` made
    /// for this very model, else `render()`'s, kept for the others. `fresh` tells which.
    func rendered(_ model: ViewModel, for key: Key, render: () -> RenderedView) -> (rendered: RenderedView, fresh: Bool) {
        let found = table.withLock { table -> Slot? in
            if let slot = table.slots[key] { return slot }
            if table.slots.count >= Self.maximumSlots {
                table.slots.removeAll(keepingCapacity: true)
                table.variants.removeAll(keepingCapacity: true)
            }
            guard table.variants[key.session, default: 0] < Self.variantsPerSession else { return nil }
            table.variants[key.session, default: 0] += 1
            let slot = Slot()
            table.slots[key] = slot
            return slot
        }
        guard let slot = found else { return (render(), true) }
        return slot.made.withLock { made in
            if made.model === model, let rendered = made.rendered { return (rendered, false) }
            let rendered = render()
            made = Made(model: model, rendered: rendered)
            return (rendered, true)
        }
    }
}
