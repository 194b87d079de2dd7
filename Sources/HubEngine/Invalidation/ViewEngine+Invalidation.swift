import HubModel
import Synchronization

extension ViewEngine {
    /// Invalidates content that changed at its source (`POST /invalidate`, or another replica's
    /// invalidation from a shared store's change feed): the chain memo forgets the entries
    /// `invalidation` matches, and every live session that used matching content (or whose
    /// feature it names) is marked stale. Sessions followed over SSE re-run now, through the
    /// pool a config reload uses (``Configuration/maxConcurrentReruns``), and push their new
    /// view; the others re-run on their next load (or action, or new listener), whatever their
    /// reload policy. Recent opens answered from the memo are forgotten too (the definitions'
    /// generation moves on).
    ///
    /// The caller evicts what the engine does not own first (upstream responses, last good
    /// content, upstream freshness), so the re-runs fetch again. Returns once every matching
    /// session is marked, without waiting for the re-runs; `droppedViews` receives the view
    /// models of the dropped memo entries (their renderings can go).
    @discardableResult
    public func invalidate(
        _ invalidation: ContentInvalidation, droppedViews: ([ViewModel]) -> Void = { _ in }
    ) async -> ContentInvalidationReport {
        var report = ContentInvalidationReport()
        guard !invalidation.isEmpty else { return report }
        if let memo = environment.memo {
            let dropped = memo.forget(matching: invalidation)
            report.memoEntries = dropped.count
            droppedViews(dropped.compactMap { $0 })
        }
        // Recent opens answered from the memo without its key (``RecentOpenings``) and settled
        // views hold under the definitions' generation: move it on when a memo entry went (or
        // a feature is named), so none answers with what was dropped. Each session then checks
        // its feature once on its next use, as after a config reload.
        if report.memoEntries > 0 || !invalidation.features.isEmpty { definitions.bumpGeneration() }
        let features = invalidation.features.isEmpty ? nil : definitions.features
        var eager: [ViewSession] = []
        for session in sessions.allSessions() {
            var matched = session.contentUse.map(invalidation.matches) ?? false
            if !matched, let features, let feature = features.feature(for: session.viewURI) {
                matched = invalidation.features.contains(feature.identifier)
            }
            guard matched else { continue }
            report.sessions += 1
            await session.markContentInvalidated()
            if session.subscriberGauge.load(ordering: .relaxed) > 0 { eager.append(session) }
        }
        report.sessionsRerun = eager.count
        runPaced(eager) { await $0.rerunForInvalidation() }
        return report
    }
}
