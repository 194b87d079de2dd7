/// What a rebuilt session's first chain run found of its session-scoped state
/// (``StateScope/session``): what a client is told, so that it can tell its user that what the
/// session held is gone (``ViewEngine/ResolvedSession/rebuilt(_:_:reason:stateOutcome:)``).
///
/// A token is issued before any state is written, so a rebuild cannot know for certain that
/// state was *lost*: ``lost`` means the run looked for the session's state and found none,
/// because it is gone (another replica's own store, a store that expired it) or because it was
/// never written (a session evicted before its first write reports `lost` too). A run that read
/// no session-scoped state has no outcome (`nil`: there was nothing to lose).
public enum RebuiltState: Sendable, Hashable, CaseIterable {
    /// The run read the session's state and found at least one value.
    case kept
    /// The run read the session's state and found no value (gone, or never written).
    case lost
}

extension StateTouchLog {
    /// What the run that recorded this log found of session `sessionID`'s own keys
    /// (``RebuiltState``): reads of keys in its session scope count, except a read of a key the
    /// run wrote earlier itself (the value is the run's, not the session's) and a read the store
    /// could not answer (`serve-without-state`: nothing is known of the value). `kept` when one
    /// of them found a value (an unreadable or dropped value counts: something was stored),
    /// `lost` when none did, `nil` when there was no such read.
    func sessionStateOutcome(sessionID: String) -> RebuiltState? {
        let touches = recorded
        guard !touches.isEmpty else { return nil }  // most runs read no state: nothing is made
        let prefix = "session/" + sessionID + "/"
        var written: Set<StateKey> = []
        var read = false
        for touch in touches where touch.key.rawValue.hasPrefix(prefix) {
            if touch.wrote {
                written.insert(touch.key)
                continue
            }
            guard !touch.unanswered, !written.contains(touch.key) else { continue }
            if touch.version > 0 { return .kept }
            read = true
        }
        return read ? .lost : nil
    }
}
