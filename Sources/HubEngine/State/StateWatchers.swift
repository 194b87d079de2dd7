import HubSync

/// Which sessions follow which state keys: a session follows the keys its operations read in
/// their latest runs. Sessions are held weakly (the session store owns them); a session leaves
/// when it closes or is freed.
final class StateWatchers: Sendable {
    private struct Follower: Sendable {
        weak var session: ViewSession?
    }

    private struct State: Sendable {
        var byKey: [StateKey: [ObjectIdentifier: Follower]] = [:]
        var bySession: [ObjectIdentifier: Set<StateKey>] = [:]
    }

    private let state = Locked(State())

    /// `session` now follows exactly `keys`.
    func follow(_ session: ViewSession, keys: Set<StateKey>) {
        let id = ObjectIdentifier(session)
        state.withLock { state in
            let previous = state.bySession[id] ?? []
            for key in previous.subtracting(keys) { Self.drop(id, from: key, in: &state) }
            for key in keys.subtracting(previous) { state.byKey[key, default: [:]][id] = Follower(session: session) }
            state.bySession[id] = keys.isEmpty ? nil : keys
        }
    }

    /// The session `id` follows nothing any more.
    func forget(_ id: ObjectIdentifier) {
        state.withLock { state in
            for key in state.bySession.removeValue(forKey: id) ?? [] { Self.drop(id, from: key, in: &state) }
        }
    }

    /// The live sessions following `key`.
    func sessions(following key: StateKey) -> [ViewSession] {
        state.withLock { state in (state.byKey[key]?.values).map { $0.compactMap(\.session) } ?? [] }
    }

    /// Every key some session follows.
    var followedKeys: [StateKey] { state.withLock { Array($0.byKey.keys) } }

    /// Sessions following at least one key.
    var sessionCount: Int { state.withLock { $0.bySession.count } }

    private static func drop(_ id: ObjectIdentifier, from key: StateKey, in state: inout State) {
        state.byKey[key]?[id] = nil
        if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
    }
}
