import Synchronization

/// What the engine counts for metrics besides its sessions: tokens refused, by why, chain
/// re-runs a config reload or a state change caused, state values migrated or dropped, and
/// what rebuilt sessions found of their state.
public final class EngineCounters: Sendable {
    private let malformed = Atomic<Int>(0)
    private let signature = Atomic<Int>(0)
    private let expired = Atomic<Int>(0)
    private let future = Atomic<Int>(0)
    private let revoked = Atomic<Int>(0)
    private let eagerReruns = Atomic<Int>(0)
    private let lazyReruns = Atomic<Int>(0)
    private let stateMigrated = Atomic<Int>(0)
    private let stateDropped = Atomic<Int>(0)
    private let readFallbacks = Atomic<Int>(0)
    private let stateChangeReruns = Atomic<Int>(0)
    private let stateRerunLoops = Atomic<Int>(0)
    private let rebuiltKept = Atomic<Int>(0)
    private let rebuiltLost = Atomic<Int>(0)

    public init() {}

    /// Tokens refused for `reason` since start.
    public func rejected(_ reason: SessionToken.Rejection) -> Int {
        switch reason {
        case .malformed: return malformed.load(ordering: .relaxed)
        case .signature: return signature.load(ordering: .relaxed)
        case .expired: return expired.load(ordering: .relaxed)
        case .future: return future.load(ordering: .relaxed)
        case .revoked: return revoked.load(ordering: .relaxed)
        }
    }

    /// Re-runs a reload caused: `eager` for sessions followed over SSE (re-run at once, through
    /// the bounded pool), `lazy` for the rest (re-run on their next request).
    public var reruns: (eager: Int, lazy: Int) {
        (eagerReruns.load(ordering: .relaxed), lazyReruns.load(ordering: .relaxed))
    }

    /// State values of an older shape read since start: `migrated`, or `dropped` (no migration,
    /// or an unreadable value).
    public var stateShapes: (migrated: Int, dropped: Int) {
        (stateMigrated.load(ordering: .relaxed), stateDropped.load(ordering: .relaxed))
    }

    /// Reads that answered "no value" because the store was unavailable (`serve-without-state`).
    public var stateReadFallbacks: Int { readFallbacks.load(ordering: .relaxed) }

    /// Chain re-runs a state change caused (a key an operation read changed).
    public var stateReruns: Int { stateChangeReruns.load(ordering: .relaxed) }

    func countStateMigration(migrated: Bool) {
        if migrated { stateMigrated.add(1, ordering: .relaxed) } else { stateDropped.add(1, ordering: .relaxed) }
    }

    func countStateReadFallback() { readFallbacks.add(1, ordering: .relaxed) }

    func countStateRerun() { stateChangeReruns.add(1, ordering: .relaxed) }

    /// Sessions whose state changes re-ran their chain in a loop, each paused (``StateRerunGuard``).
    public var stateLoops: Int { stateRerunLoops.load(ordering: .relaxed) }

    func countStateRerunLoop() { stateRerunLoops.add(1, ordering: .relaxed) }

    /// Rebuilds counted in the session store's rebuild statistics whose first run read the
    /// session's own state, by what it found (``RebuiltState``).
    public func rebuiltStates(_ outcome: RebuiltState) -> Int {
        switch outcome {
        case .kept: return rebuiltKept.load(ordering: .relaxed)
        case .lost: return rebuiltLost.load(ordering: .relaxed)
        }
    }

    func countRebuiltState(_ outcome: RebuiltState) {
        switch outcome {
        case .kept: rebuiltKept.add(1, ordering: .relaxed)
        case .lost: rebuiltLost.add(1, ordering: .relaxed)
        }
    }

    func reject(_ reason: SessionToken.Rejection) {
        switch reason {
        case .malformed: malformed.add(1, ordering: .relaxed)
        case .signature: signature.add(1, ordering: .relaxed)
        case .expired: expired.add(1, ordering: .relaxed)
        case .future: future.add(1, ordering: .relaxed)
        case .revoked: revoked.add(1, ordering: .relaxed)
        }
    }

    func countRerun(eager: Bool) {
        if eager { eagerReruns.add(1, ordering: .relaxed) } else { lazyReruns.add(1, ordering: .relaxed) }
    }
}
