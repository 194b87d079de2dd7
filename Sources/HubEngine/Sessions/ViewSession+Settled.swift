extension ViewSession {
    /// Publishes the session's view to the store as a ``SettledView`` when it is settled: loaded,
    /// nothing queued or running, not ended. Only for sessions a client loaded again
    /// (``publishesSettled``): a session opened and never used costs no published view.
    func publishSettled() {
        forgetRequestTrace()
        guard publishesSettled, !isClosed, !isLoading, currentViewModel != nil, let loadedAt else { return }
        let settled = SettledView(
            state: state, connectivity: connectivity, reloadPolicy: feature.reloadPolicy, loadedAt: loadedAt,
            baseline: request, generation: validatedGeneration, rerun: memoizedRerun())
        if let replaced = environment.replaceSettled(self, settled), let request = replaced.retire() {
            self.request = request
        }
    }

    /// Under `reload: always`: what a re-run would answer when the chain memo would answer it
    /// with the current view (the last full run was memoized under the key the chain has now,
    /// it succeeded, and every operation says how long its key lasts); `nil` otherwise.
    private func memoizedRerun() -> SettledView.MemoizedRerun? {
        guard feature.reloadPolicy == .always, let runKey = memoizedRunKey, lastFailure == nil, let currentViewModel,
            pageIndex == 0
        else { return nil }
        // The checks before the key (see ``MemoKeyChecks``).
        guard let checks = MemoKeyChecks(
            feature: feature, operations: operations, request: request, connectivity: connectivity, sessionID: id)
        else { return nil }
        guard memoKey() == runKey else { return nil }
        let timings = timings.map(\.asMemoized)
        return SettledView.MemoizedRerun(
            state: ViewState(viewModel: currentViewModel, version: version, failure: nil, timings: timings),
            featureIdentifier: feature.identifier, checks: checks)
    }

    /// Takes the published view back before anything changes what a load would answer, and
    /// adopts the newest request a load answered from it (so a run sees that request's headers).
    func withdrawSettled() {
        guard publishesSettled, let withdrawn = environment.replaceSettled(self, nil) else { return }
        if let request = withdrawn.retire() { self.request = request }
    }

    /// Drops the kept request's trace once nothing is running or queued: the run it was for is
    /// over (``ViewRequest/withoutTrace()``), and a session held for hours kept a finished
    /// request's context alive (about 200 bytes of a one-item session's 4-5 KB).
    func forgetRequestTrace() {
        guard !isLoading, request.trace != nil else { return }
        request = request.withoutTrace()
    }
}
