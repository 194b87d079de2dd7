import HubSync

/// The event streams open now, so a drain can end them: an open stream would otherwise hold
/// its connection, and so the drain, until `timeouts.drainSeconds` runs out. A client's
/// EventSource reconnects on its own, to a replica that is not draining.
final class StreamRegistry: Sendable {
    private struct State {
        var enders: [Int: @Sendable () -> Void] = [:]
        var nextToken = 0
        var ended = false
    }

    private let state = Locked(State())

    /// Streams open now.
    var count: Int { state.withLock { $0.enders.count } }

    /// Registers a stream's `end`; returns its token, or `nil` when streams have already been
    /// ended (the caller ends its stream at once).
    func register(_ end: @escaping @Sendable () -> Void) -> Int? {
        state.withLock { state -> Int? in
            guard !state.ended else { return nil }
            state.nextToken += 1
            state.enders[state.nextToken] = end
            return state.nextToken
        }
    }

    /// Forgets a stream that ended by itself.
    func unregister(_ token: Int) {
        _ = state.withLock { $0.enders.removeValue(forKey: token) }
    }

    /// Ends every open stream, and every stream registered from now on.
    func endAll() {
        let enders = state.withLock { state -> [@Sendable () -> Void] in
            state.ended = true
            defer { state.enders.removeAll() }
            return Array(state.enders.values)
        }
        for end in enders { end() }
    }
}
