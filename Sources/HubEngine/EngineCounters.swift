import Synchronization

/// What the engine counts for metrics besides its sessions: tokens refused, by why, and chain
/// re-runs a config reload caused, by when they ran.
public final class EngineCounters: Sendable {
    private let malformed = Atomic<Int>(0)
    private let signature = Atomic<Int>(0)
    private let expired = Atomic<Int>(0)
    private let revoked = Atomic<Int>(0)
    private let eagerReruns = Atomic<Int>(0)
    private let lazyReruns = Atomic<Int>(0)

    public init() {}

    /// Tokens refused for `reason` since start.
    public func rejected(_ reason: SessionToken.Rejection) -> Int {
        switch reason {
        case .malformed: return malformed.load(ordering: .relaxed)
        case .signature: return signature.load(ordering: .relaxed)
        case .expired: return expired.load(ordering: .relaxed)
        case .revoked: return revoked.load(ordering: .relaxed)
        }
    }

    /// Re-runs a reload caused: `eager` for sessions followed over SSE (re-run at once, through
    /// the bounded pool), `lazy` for the rest (re-run on their next request).
    public var reruns: (eager: Int, lazy: Int) {
        (eagerReruns.load(ordering: .relaxed), lazyReruns.load(ordering: .relaxed))
    }

    func reject(_ reason: SessionToken.Rejection) {
        switch reason {
        case .malformed: malformed.add(1, ordering: .relaxed)
        case .signature: signature.add(1, ordering: .relaxed)
        case .expired: expired.add(1, ordering: .relaxed)
        case .revoked: revoked.add(1, ordering: .relaxed)
        }
    }

    func countRerun(eager: Bool) {
        if eager { eagerReruns.add(1, ordering: .relaxed) } else { lazyReruns.add(1, ordering: .relaxed) }
    }
}
