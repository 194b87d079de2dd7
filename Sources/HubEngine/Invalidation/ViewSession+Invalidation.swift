import HubModel
import HubSync

extension ViewSession {
    /// The upstream content the session's view was built from, without the actor.
    nonisolated var contentUse: ContentUse? { usedContent.withLock { $0 } }

    /// Keeps what a run reported (``ContentSources``): a full run replaces what the session
    /// used; a partial run or a page adds to it (what operations before it used still holds).
    func recordContentUse(_ reported: (urls: [String], tags: [String]), replacing: Bool) {
        usedContent.withLock { use in
            let base = replacing ? nil : use
            use = ContentUse.merging(base, urls: reported.urls, tags: reported.tags)
        }
    }

    /// An invalidation named content the view was built from: the published settled view no
    /// longer answers, and the next load (or ``rerunForInvalidation()``) re-runs the chain from
    /// operation 0, whatever the reload policy.
    func markContentInvalidated() {
        guard !isClosed else { return }
        contentInvalidated = true
        withdrawSettled()
    }

    /// Whether an invalidation is pending; clears it (the caller re-runs the chain).
    func takeContentInvalidation() -> Bool {
        guard contentInvalidated else { return false }
        contentInvalidated = false
        return true
    }

    /// An invalidation's eager re-run (a session followed over SSE): re-runs the chain from
    /// operation 0 unless a load took the invalidation already, and waits until it drained, so
    /// the pool keeps at most its bound of chains running. Listeners get the new view.
    func rerunForInvalidation() async {
        guard !isClosed, takeContentInvalidation() else { return }
        enqueue(.main(from: 0))
        startDrivingIfNeeded()
        _ = await settled()
    }
}
