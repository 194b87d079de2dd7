import HubSync
import Synchronization

/// Shares one in-flight operation among concurrent callers with the same key.
///
/// The shared work runs in its own unstructured task, so cancelling one caller never fails the
/// others: a cancelled caller just stops waiting (and gets `CancellationError`); the work itself
/// is cancelled only when its last waiter leaves. Continuations are resumed outside the lock.
final class RequestCoalescer<Value: Sendable>: Sendable {
    private struct Flight {
        var id: UInt64
        var waiters: [UInt64: CheckedContinuation<Value, any Error>]
        var task: Task<Void, Never>?
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextID: UInt64 = 0
    }

    private enum JoinStep {
        case cancelled, joined, lead(UInt64)
    }

    private let state = Locked(State())

    /// Runs `operation` for `key`, or joins the run already in flight for `key`.
    /// Returns the value and whether this call joined someone else's run.
    func run(
        key: String, operation: @escaping @Sendable () async throws -> Value
    ) async throws -> (value: Value, joined: Bool) {
        let waiterID = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let joined = Locked(false)
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let step = state.withLock { state -> JoinStep in
                    if Task.isCancelled { return .cancelled }
                    if state.flights[key] != nil {
                        state.flights[key]!.waiters[waiterID] = continuation
                        return .joined
                    }
                    state.nextID += 1
                    state.flights[key] = Flight(id: state.nextID, waiters: [waiterID: continuation], task: nil)
                    return .lead(state.nextID)
                }
                switch step {
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .joined:
                    joined.withLock { $0 = true }
                case .lead(let flightID):
                    let task = Task { [self] in
                        let result: Result<Value, any Error>
                        do { result = .success(try await operation()) } catch { result = .failure(error) }
                        complete(key: key, flightID: flightID, with: result)
                    }
                    let orphaned = state.withLock { state -> Bool in
                        guard state.flights[key]?.id == flightID else { return true }
                        state.flights[key]!.task = task
                        return false
                    }
                    if orphaned { task.cancel() }  // every waiter left before the task was recorded
                }
            }
        } onCancel: {
            leave(key: key, waiterID: waiterID)
        }
        return (value, joined.withLock { $0 })
    }

    /// Callers waiting on a flight, leaders included (tests wait for joins with it).
    var waiterCount: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    private func complete(key: String, flightID: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let flight = state.flights[key], flight.id == flightID else { return [] }
            state.flights[key] = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(key: String, waiterID: UInt64) {
        let (continuation, taskToCancel) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard var flight = state.flights[key], let continuation = flight.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil)
            }
            if flight.waiters.isEmpty {
                state.flights[key] = nil
                return (continuation, flight.task)
            }
            state.flights[key] = flight
            return (continuation, nil)
        }
        continuation?.resume(throwing: CancellationError())
        taskToCancel?.cancel()
    }
}
