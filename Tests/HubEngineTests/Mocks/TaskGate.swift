import HubSync

/// An explicit gate for deterministic ordering without sleeps.
///
/// `pass()` consumes a permit, or suspends until ``release(_:)`` grants one (or the task is
/// cancelled, e.g. by a deadline). ``arrivals(_:)`` suspends until at least `n` calls of
/// `pass()` have arrived, so a test knows an operation is running and blocked.
final class TaskGate: Sendable {
    private struct State {
        var permits = 0
        var arrived = 0
        var passers: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0
    }

    private let state = Locked(State())

    init(permits: Int = 0) {
        state.withLock { $0.permits = permits }
    }

    /// Waits for a permit.
    func pass() async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: [CheckedContinuation<Void, Never>] = state.withLock { state in
                    state.arrived += 1
                    var ready = state.arrivalWaiters.filter { state.arrived >= $0.count }.map(\.continuation)
                    state.arrivalWaiters.removeAll { state.arrived >= $0.count }
                    if Task.isCancelled {
                        ready.append(continuation)
                    } else if state.permits > 0 {
                        state.permits -= 1
                        ready.append(continuation)
                    } else {
                        state.passers.append((id, continuation))
                    }
                    return ready
                }
                for waiter in resumeNow { waiter.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.passers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.passers.remove(at: index).continuation
            }
            cancelled?.resume()
        }
    }

    /// Grants `count` permits, resuming waiting passers first (in arrival order).
    func release(_ count: Int = 1) {
        let resumed: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.permits += count
            var resumed: [CheckedContinuation<Void, Never>] = []
            while state.permits > 0, !state.passers.isEmpty {
                state.permits -= 1
                resumed.append(state.passers.removeFirst().continuation)
            }
            return resumed
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Lets every current and future passer through.
    func open() {
        release(1_000_000)
    }

    /// Waits until at least `count` passers have arrived in total.
    func arrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.arrived >= count { return true }
                state.arrivalWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    var arrivedCount: Int { state.withLock { $0.arrived } }
}
