import HubSync

/// Where a ``StateStore`` keeps the one observer of its changes (``StateStore/observe(_:)``):
/// set once, called for every change from any thread.
///
/// The closure is held inside a struct, never as the lock's value itself: a function stored
/// directly as a generic value is reabstracted on every `inout` access, so each read through
/// the lock would wrap it in two more thunks, and after n changes one call would run through
/// 2n of them (quadratic time, then a stack overflow).
public final class StateObserverSlot: Sendable {
    private struct Held: Sendable {
        var observer: (@Sendable (StateStoreEvent) -> Void)?
    }

    private let held = Locked(Held())

    public init() {}

    /// Replaces the observer.
    public func set(_ observer: @escaping @Sendable (StateStoreEvent) -> Void) {
        held.withLock { $0.observer = observer }
    }

    /// Calls the observer (outside the lock) with `event`; nothing when none is set.
    public func report(_ event: StateStoreEvent) {
        held.withLock { $0.observer }?(event)
    }
}
