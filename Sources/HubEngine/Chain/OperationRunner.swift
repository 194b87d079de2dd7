import HubModel
import HubSync

/// Runs one operation against a builder, inline or under a deadline.
enum OperationRunner {
    /// What one run of an operation produced: the builder it left (S90) and its error.
    struct Result: Sendable {
        var builder: ViewModelBuilder
        var error: (any Error)?
        var duration: Duration
        /// What the operation reported with ``StaleContent/report(ageSeconds:)``.
        var staleAgeSeconds: Int? = nil
    }

    /// Runs `body` on a copy of `builder`. Operations that complete synchronously run inline;
    /// the others race a deadline: a late operation fails with ``OperationTimeoutError`` and
    /// its eventual output is discarded (it is cancelled, but cannot be forced to stop).
    static func run(
        name: String, inline: Bool, deadline: Duration, builder: ViewModelBuilder,
        _ body: @escaping @Sendable (inout ViewModelBuilder) async throws -> Void
    ) async -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        if inline {
            var copy = builder
            do {
                try await body(&copy)
                return Result(builder: copy, error: nil, duration: clock.now - start)
            } catch {
                return Result(builder: copy, error: error, duration: clock.now - start)
            }
        }
        // Stale content comes from waiting on a source: only operations that wait can report it
        // (inline ones pay nothing for it).
        let report = StaleContent.Report()
        let reporting: @Sendable (inout ViewModelBuilder) async throws -> Void = { builder in
            try await StaleContent.$current.withValue(report) { try await body(&builder) }
        }
        let outcome = await raceDeadline(name: name, deadline: deadline, builder: builder, reporting)
        return Result(
            builder: outcome.builder, error: outcome.error, duration: clock.now - start,
            staleAgeSeconds: outcome.error == nil ? report.ageSeconds : nil)
    }

    private struct Outcome: Sendable {
        var builder: ViewModelBuilder
        var error: (any Error)?
    }

    private static func raceDeadline(
        name: String, deadline: Duration, builder: ViewModelBuilder,
        _ body: @escaping @Sendable (inout ViewModelBuilder) async throws -> Void
    ) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let gate = ResumeOnce(continuation)
            let work = Task.detached {
                var copy = builder
                do {
                    try await body(&copy)
                    gate.resume(with: Outcome(builder: copy, error: nil))
                } catch {
                    gate.resume(with: Outcome(builder: copy, error: error))
                }
            }
            let timer = Task.detached {
                try? await Task.sleep(for: deadline)
                guard !Task.isCancelled else { return }
                let timeout = OperationTimeoutError(operationName: name, deadline: deadline)
                if gate.resume(with: Outcome(builder: builder, error: timeout)) { work.cancel() }
            }
            gate.setTimer(timer)
        }
    }
}

/// Resumes a continuation exactly once, and cancels the deadline timer when the work wins.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var timer: Task<Void, Never>?
    }

    private let state: Locked<State>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        state = Locked(State(continuation: continuation, timer: nil))
    }

    /// Resumes if nobody has; returns whether this call did.
    @discardableResult
    func resume(with value: Value) -> Bool {
        let (continuation, timer) = state.withLock { state in
            let taken = (state.continuation, state.timer)
            state.continuation = nil
            state.timer = nil
            return taken
        }
        guard let continuation else { return false }
        timer?.cancel()
        continuation.resume(returning: value)
        return true
    }

    /// Registers the timer; cancels it at once when the work already finished.
    func setTimer(_ timer: Task<Void, Never>) {
        let finished = state.withLock { state in
            if state.continuation == nil { return true }
            state.timer = timer
            return false
        }
        if finished { timer.cancel() }
    }
}
