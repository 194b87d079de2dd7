extension ViewSession {
    /// Publishes the session's view to the store as a ``SettledView`` when it is settled: loaded,
    /// nothing queued or running, not ended. Only for sessions a client loaded again
    /// (``publishesSettled``): a session opened and never used costs no published view.
    func publishSettled() {
        guard publishesSettled, !isClosed, !isLoading, currentViewModel != nil, let loadedAt else { return }
        let settled = SettledView(
            state: state, connectivity: connectivity, reloadPolicy: feature.reloadPolicy, loadedAt: loadedAt,
            baseline: request, generation: validatedGeneration)
        if let replaced = environment.replaceSettled(self, settled), let request = replaced.retire() {
            self.request = request
        }
    }

    /// Takes the published view back before anything changes what a load would answer, and
    /// adopts the newest request a load answered from it (so a run sees that request's headers).
    func withdrawSettled() {
        guard publishesSettled, let withdrawn = environment.replaceSettled(self, nil) else { return }
        if let request = withdrawn.retire() { self.request = request }
    }
}
