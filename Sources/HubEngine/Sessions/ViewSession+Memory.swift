import HubModel
import Synchronization

extension ViewSession {
    /// What a session holds besides its view, snapshots and retained request headers: the
    /// actor, its token, timings, operations, state reads, the store's entry and eviction
    /// records, a published settled view, allocator overhead. Calibrated so that
    /// `hub_sessions_bytes` grows within 25% of the RSS the sessions add, plain sessions and
    /// sessions keeping 16 KiB of headers alike (about 2.6 KB of RSS per plain one-row session
    /// at 10,000 sessions, 3.4 to 3.7 KB at 400; docs/PERFORMANCE.md "Session estimate").
    static var baseBytes: Int { 2560 }

    /// About the bytes this session holds (``MemoryEstimate``): its own view model (kept as the
    /// JSON it serves), the snapshots it keeps, and its latest request (the retained headers,
    /// ``ViewRequest/retainedBytes``), not what it shares with the chain memo. Read
    /// without the actor (the session store bounds its sessions by this, `sessions.maxBytes`);
    /// updated after each drain.
    public nonisolated var retainedBytesEstimate: Int { retainedBytes.load(ordering: .relaxed) }

    /// Computes ``retainedBytesEstimate`` again and tells the store when it changed.
    func updateRetainedBytes() {
        var total = Self.baseBytes + request.retainedBytes
        if memoizedRunKey == nil {
            total += currentViewModel?.estimatedMemoryBytes ?? 0
            for snapshot in snapshots { total += snapshot?.estimatedMemoryBytes ?? 0 }
        }
        if let initial = cachedInitialViewModel, initial !== currentViewModel { total += initial.estimatedMemoryBytes }
        guard retainedBytes.exchange(total, ordering: .relaxed) != total else { return }
        environment.resized(self, total)
    }

    /// Drops the last operation's snapshot once its view model is built, unless an operation
    /// pages (a page starts from it, S120): nothing else reads it (a re-run from operation `i`
    /// starts from snapshot `i - 1`), and it is the largest thing a session would keep besides
    /// its view. Explain mode then reports the last operation from the view model.
    func releaseUnneededSnapshots() {
        guard let last = snapshots.indices.last, snapshots[last] != nil, currentViewModel != nil,
            errors[last] == nil, !operations.contains(where: { $0 is any ContentOperationWithPaginatedContent })
        else { return }
        snapshots[last] = nil
        lastSnapshotReleased = true
    }
}
