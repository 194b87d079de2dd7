import HubModel

/// The part of a ``ViewSession``'s state that most sessions never use: a failed load, SSE
/// listeners, actions waiting for their turn, an injected initial view model, a reload's pending
/// definition. Held in one box that the session allocates on first write, so the common session (opened,
/// looked at, kept) carries one pointer for all of it. Confined to its session's actor.
final class SessionExtras {
    var lastFailure: ViewLoadError?
    var pendingDefinition: (feature: Feature, operations: [any ContentOperation])?
    var endReason: SessionEndReason?
    var cachedInitialViewModel: ViewModel?
    var subscribers: [Int: AsyncStream<ViewState>.Continuation] = [:]
    var nextSubscriberID = 0
    /// Actions waiting for their turn, in arrival order.
    var actionTurnWaiters: [CheckedContinuation<Void, Never>] = []
    /// How often state changes re-ran the chain lately (``StateRerunGuard``).
    var stateRerunGuard: StateRerunGuard?
}

extension ViewSession {
    /// The extras box, allocated now if needed.
    private func ensureExtras() -> SessionExtras {
        if let extras { return extras }
        let created = SessionExtras()
        extras = created
        return created
    }

    /// Why the last load failed (S92); `nil` after a success.
    var lastFailure: ViewLoadError? {
        get { extras?.lastFailure }
        set { if newValue != nil || extras != nil { ensureExtras().lastFailure = newValue } }
    }

    /// A reloaded definition of the session's feature, adopted when its full run starts (work
    /// already under way finishes on the old one).
    var pendingDefinition: (feature: Feature, operations: [any ContentOperation])? {
        get { extras?.pendingDefinition }
        set { if newValue != nil || extras != nil { ensureExtras().pendingDefinition = newValue } }
    }

    /// Why the session ended; `nil` while it lives.
    public internal(set) var endReason: SessionEndReason? {
        get { extras?.endReason }
        set { if newValue != nil || extras != nil { ensureExtras().endReason = newValue } }
    }

    var cachedInitialViewModel: ViewModel? {
        get { extras?.cachedInitialViewModel }
        set { if newValue != nil || extras != nil { ensureExtras().cachedInitialViewModel = newValue } }
    }

    var subscribers: [Int: AsyncStream<ViewState>.Continuation] {
        get { extras?.subscribers ?? [:] }
        set { if !newValue.isEmpty || extras != nil { ensureExtras().subscribers = newValue } }
    }

    var stateRerunGuard: StateRerunGuard? {
        get { extras?.stateRerunGuard }
        set { if newValue != nil || extras != nil { ensureExtras().stateRerunGuard = newValue } }
    }

    var actionTurnWaiters: [CheckedContinuation<Void, Never>] {
        get { extras?.actionTurnWaiters ?? [] }
        set { if !newValue.isEmpty || extras != nil { ensureExtras().actionTurnWaiters = newValue } }
    }

    var nextSubscriberID: Int {
        get { extras?.nextSubscriberID ?? 0 }
        set { ensureExtras().nextSubscriberID = newValue }
    }
}
