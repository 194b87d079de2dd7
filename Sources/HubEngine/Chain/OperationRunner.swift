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
        /// What the operation reported with ``ContentSources/report(url:tags:)``.
        var sources: (urls: [String], tags: [String])? = nil
    }

    /// Runs `body` on a copy of `builder`. Operations that complete synchronously run inline;
    /// the others race a deadline kept by `deadlines`: a late operation fails with
    /// ``OperationTimeoutError`` and its eventual output is discarded (it is cancelled, but
    /// cannot be forced to stop).
    static func run(
        name: String, inline: Bool, deadline: Duration, deadlines: DeadlineScheduler, builder: ViewModelBuilder,
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
        let sources = ContentSources.Recorder()
        let reporting: @Sendable (inout ViewModelBuilder) async throws -> Void = { builder in
            try await ContentSources.$current.withValue(sources) {
                try await StaleContent.$current.withValue(report) { try await body(&builder) }
            }
        }
        let outcome = await raceDeadline(
            name: name, deadline: deadline, deadlines: deadlines, builder: builder, reporting)
        return Result(
            builder: outcome.builder, error: outcome.error, duration: clock.now - start,
            staleAgeSeconds: outcome.error == nil ? report.ageSeconds : nil, sources: sources.use)
    }

    private struct Outcome: Sendable {
        var builder: ViewModelBuilder
        var error: (any Error)?
    }

    private static func raceDeadline(
        name: String, deadline: Duration, deadlines: DeadlineScheduler, builder: ViewModelBuilder,
        _ body: @escaping @Sendable (inout ViewModelBuilder) async throws -> Void
    ) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let gate = ResumeOnce(continuation, deadlines: deadlines)
            let work = Task.detached {
                var copy = builder
                do {
                    try await body(&copy)
                    gate.resume(with: Outcome(builder: copy, error: nil))
                } catch {
                    gate.resume(with: Outcome(builder: copy, error: error))
                }
            }
            let ticket = deadlines.schedule(after: deadline) {
                let timeout = OperationTimeoutError(operationName: name, deadline: deadline)
                if gate.resume(with: Outcome(builder: builder, error: timeout)) { work.cancel() }
            }
            gate.setDeadline(ticket)
        }
    }
}

/// Resumes a continuation exactly once, and cancels the deadline when the work wins (which
/// frees what the deadline's action holds at once).
private final class ResumeOnce<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var deadline: DeadlineScheduler.Ticket?
    }

    private let state: Locked<State>
    private let deadlines: DeadlineScheduler

    init(_ continuation: CheckedContinuation<Value, Never>, deadlines: DeadlineScheduler) {
        state = Locked(State(continuation: continuation, deadline: nil))
        self.deadlines = deadlines
    }

    /// Resumes if nobody has; returns whether this call did.
    @discardableResult
    func resume(with value: Value) -> Bool {
        let (continuation, deadline) = state.withLock { state in
            let taken = (state.continuation, state.deadline)
            state.continuation = nil
            state.deadline = nil
            return taken
        }
        guard let continuation else { return false }
        if let deadline { deadlines.cancel(deadline) }
        continuation.resume(returning: value)
        return true
    }

    /// Registers the deadline; cancels it at once when the work already finished.
    func setDeadline(_ ticket: DeadlineScheduler.Ticket) {
        let finished = state.withLock { state in
            if state.continuation == nil { return true }
            state.deadline = ticket
            return false
        }
        if finished { deadlines.cancel(ticket) }
    }
}
