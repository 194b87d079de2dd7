import HubSync

/// Which sessions follow which state keys: a session follows the keys its operations read in
/// their latest runs. Sessions are held weakly (the session store owns them); a session leaves
/// when it closes or is freed.
///
/// Most keys are a session's own (`session/<id>/...`), followed by that session alone: a key
/// with one follower holds it inline, without a table of its own, and a session's keys are a
/// list (a session follows one or two), which keeps what a held session costs here small.
final class StateWatchers: Sendable {
    private struct Follower: Sendable {
        weak var session: ViewSession?
    }

    /// The sessions following one key.
    private enum Followers: Sendable {
        case one(ObjectIdentifier, Follower)
        case many([ObjectIdentifier: Follower])

        var sessions: [ViewSession] {
            switch self {
            case .one(_, let follower): follower.session.map { [$0] } ?? []
            case .many(let followers): followers.values.compactMap(\.session)
            }
        }

        /// Adds `id` (replacing its entry), in place.
        mutating func add(_ id: ObjectIdentifier, _ follower: Follower) {
            switch self {
            case .one(let only, _) where only == id:
                self = .one(id, follower)
            case .one(let only, let other):
                self = .many([only: other, id: follower])
            case .many(var followers):
                self = .many([:])  // `followers` is the table's only reference: changed in place
                followers[id] = follower
                self = .many(followers)
            }
        }

        /// Removes `id`, in place; returns whether no follower is left.
        mutating func remove(_ id: ObjectIdentifier) -> Bool {
            switch self {
            case .one(let only, _):
                return only == id
            case .many(var followers):
                self = .many([:])
                followers[id] = nil
                if followers.count == 1, let (only, follower) = followers.first {
                    self = .one(only, follower)
                } else {
                    self = .many(followers)
                }
                return followers.isEmpty
            }
        }
    }

    private struct State: Sendable {
        var byKey: [StateKey: Followers] = [:]
        var bySession: [ObjectIdentifier: [StateKey]] = [:]
    }

    private let state = Locked(State())

    /// `session` now follows exactly `keys`.
    func follow(_ session: ViewSession, keys: Set<StateKey>) {
        let id = ObjectIdentifier(session)
        state.withLock { state in
            let previous = state.bySession[id] ?? []
            for key in previous where !keys.contains(key) { Self.drop(id, from: key, in: &state) }
            for key in keys where !previous.contains(key) {
                let follower = Follower(session: session)
                if state.byKey[key] == nil {
                    state.byKey[key] = .one(id, follower)
                } else {
                    state.byKey[key]!.add(id, follower)
                }
            }
            state.bySession[id] = keys.isEmpty ? nil : Array(keys)
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
        state.withLock { state in state.byKey[key]?.sessions ?? [] }
    }

    /// Every key some session follows.
    var followedKeys: [StateKey] { state.withLock { Array($0.byKey.keys) } }

    /// Sessions following at least one key.
    var sessionCount: Int { state.withLock { $0.bySession.count } }

    private static func drop(_ id: ObjectIdentifier, from key: StateKey, in state: inout State) {
        if state.byKey[key]?.remove(id) == true { state.byKey[key] = nil }
    }
}
