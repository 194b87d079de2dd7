import HubSync

/// What this process knows about revocations the state store holds and has not yet recorded:
/// whether the store's revocations have been loaded (until then a token this process does not
/// hold cannot be told apart from a revoked one, so it is refused with `state_unavailable`,
/// never rebuilt), and the `DELETE /view`s the store could not record when they were made (it
/// was unavailable), kept in memory until it records them. Bounded: at most ``capacity``
/// pending revocations; past it a `DELETE` changes nothing and answers `state_unavailable`.
final class RevocationOutbox: Sendable {
    /// A revocation the store has not recorded yet.
    struct Entry: Sendable, Equatable {
        let id: String
        /// When the token would have expired (seconds since the epoch): the record's expiry.
        let expiry: Int64
        /// Whether the token named a stored session (held here, or issued stored): recorded
        /// whatever happens. `false`: a lazy token this process did not hold, recorded only when
        /// the session turns out to have state in the store (else forgotten).
        let namedStoredSession: Bool
    }

    /// Most revocations kept waiting for the store.
    static let capacity = 10_000

    private struct State {
        var loaded: Bool
        /// Whether a request is loading the store's revocations now (one at a time).
        var loading = false
        var pending: [String: Entry] = [:]
        /// Identifiers whose revocation is being written now (one writer at a time each).
        var recording: Set<String> = []
    }

    private let state: Locked<State>

    /// `loaded`: whether there is nothing to load (a store no other process writes to starts
    /// loaded; a shared one does not).
    init(loaded: Bool) {
        state = Locked(State(loaded: loaded))
    }

    /// Whether the store's revocations have been loaded once.
    var isLoaded: Bool { state.withLock { $0.loaded } }

    func markLoaded() { state.withLock { $0.loaded = true } }

    /// Claims the one load a request may make while not loaded; `false` when loaded or another
    /// request loads now.
    func beginLoading() -> Bool {
        state.withLock { state in
            guard !state.loaded, !state.loading else { return false }
            state.loading = true
            return true
        }
    }

    func endLoading() { state.withLock { $0.loading = false } }

    /// Revocations waiting for the store.
    var count: Int { state.withLock { $0.pending.count } }

    /// Whether another revocation may be kept.
    var hasRoom: Bool { state.withLock { $0.pending.count < Self.capacity } }

    /// Keeps `entry` until ``remove(_:)`` (a token named by two entries keeps the one that must
    /// be recorded).
    func add(_ entry: Entry) {
        state.withLock { state in
            if let kept = state.pending[entry.id], kept.namedStoredSession { return }
            state.pending[entry.id] = entry
        }
    }

    /// The entry waiting for session `id`, if any.
    func entry(_ id: String) -> Entry? { state.withLock { $0.pending[id] } }

    /// Every entry waiting now.
    var entries: [Entry] { state.withLock { Array($0.pending.values) } }

    func remove(_ id: String) { state.withLock { _ = $0.pending.removeValue(forKey: id) } }

    /// Marks `id` as being written; `false` when another caller writes it now (two writers of
    /// one lazy token could otherwise see its state deleted by the other and forget it).
    func beginRecording(_ id: String) -> Bool { state.withLock { $0.recording.insert(id).inserted } }

    func endRecording(_ id: String) { state.withLock { _ = $0.recording.remove(id) } }
}
