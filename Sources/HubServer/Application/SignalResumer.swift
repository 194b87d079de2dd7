import HubSync

/// Wakes one waiter when a termination signal arrives (before or after it started waiting).
final class SignalResumer: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var fired = false
    }

    private let state = Locked(State())

    /// Suspends until ``resume()`` has been called.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state in
                if state.fired { return true }
                state.continuation = continuation
                return false
            }
            if fired { continuation.resume() }
        }
    }

    func resume() {
        let continuation = state.withLock { state in
            state.fired = true
            let taken = state.continuation
            state.continuation = nil
            return taken
        }
        continuation?.resume()
    }
}

/// Holds the session-expiry task so shutdown can stop it.
final class SweeperBox: Sendable {
    private let task = Locked<Task<Void, Never>?>(nil)

    func start(_ make: () -> Task<Void, Never>) {
        let started = make()
        task.withLock { $0 = started }
    }

    func stop() {
        task.withLock { $0 }?.cancel()
    }
}
