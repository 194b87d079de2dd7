import HubModel

/// What a start of a view makes before anything runs: the feature, its operations for the
/// request, the session identifier and the chain memo's key (`nil` when the chain is not
/// memoizable or memoization is off). Made once per request and carried to the run.
struct PreparedView: Sendable {
    let feature: Feature
    let operations: [any ContentOperation]
    let request: ViewRequest
    let id: String
    let memoKey: String?
}

extension ViewEngine {
    /// A view opened for a client that gets only its token (`GET /view?uri=`).
    public enum ViewOpening: Sendable {
        /// The chain memo answered: the lazy token and the memoized view; nothing stored, nothing run.
        case now(token: SessionToken, state: ViewState)
        /// The chain must run: ``PendingView/run(admission:)`` runs it, with what was made already.
        case later(PendingView)
    }

    /// A view whose chain must run, carrying the feature, operations, session identifier and
    /// memo key already made for it.
    public struct PendingView: Sendable {
        let engine: ViewEngine
        let prepared: PreparedView

        /// Runs the chain in a stored session, as a new session's first load does (the memo is
        /// asked again: another request may have filled it meanwhile). `admission` is asked
        /// only when a session is about to be stored.
        public nonisolated(nonsending) func run(
            admission: () -> SessionAdmission = { .admit }
        ) async throws(EngineError) -> (token: SessionToken, state: ViewState) {
            let started = try await engine.start(
                prepared, initialViewModel: nil, storage: .lazy, id: nil, needsSession: false, admission: admission)
            return (started.token, started.state)
        }
    }

    /// The feature, operations, identifier and memo key of a start for `request`; the identifier
    /// is `id` when given (a rebuild), else a new one. Throws `featureNotFound` (no feature
    /// matches) or `noOperations` (S85).
    func prepare(_ request: ViewRequest, id given: String?) throws(EngineError) -> PreparedView {
        let (feature, operations, id) = try chain(for: request, id: given)
        return PreparedView(
            feature: feature, operations: operations, request: request, id: id,
            memoKey: memoKey(feature: feature, operations: operations, request: request, id: id))
    }

    /// The feature serving `request` and the operations it makes for it, with the session
    /// identifier (`given`, else a new one): a start's chain before its memo key.
    private func chain(
        for request: ViewRequest, id given: String?
    ) throws(EngineError) -> (feature: Feature, operations: [any ContentOperation], id: String) {
        guard let feature = features.feature(for: request.viewURI) else {
            throw EngineError(.featureNotFound, "no feature serves '\(request.viewURI)'")
        }
        try feature.checkAccess(request.user)
        return (feature, try feature.makeOperations(for: request), given ?? SessionIdentifier.make())
    }

    /// The chain memo's key for a start (nil when the chain is not memoizable or memoization is off).
    private func memoKey(feature: Feature, operations: [any ContentOperation], request: ViewRequest, id: String) -> String? {
        guard environment.memo != nil else { return nil }
        return ChainMemo.key(
            feature: feature, operations: operations, request: request, connectivity: request.connectivity, sessionID: id)
    }

    /// Opens a view for a client that gets only its token (`GET /view?uri=`), without suspending:
    /// `ready` when the chain memo answers it (the lazy token creates the session on first use,
    /// so a one-shot view costs no session), else `pending` with the chain to run in a stored
    /// session, as a new session's. Throws as ``openSession(for:initialViewModel:lazy:admission:)``.
    ///
    /// An open with the same client request as one the memo answered recently is answered as the
    /// memo would, without preparing the chain (``RecentOpenings``).
    public func openView(for request: ViewRequest) throws(EngineError) -> ViewOpening {
        // Read before anything is prepared: a reload from here on makes what is remembered stale.
        let generation = definitions.generation
        let remembered = recentOpenings.outcome(for: request, generation: generation)
        return try openView(for: request, remembered: remembered, generation: generation)
    }

    /// ``openView(for:)`` with the request made only when it is needed: an open whose client
    /// request is one the memo answered recently (`sameClient(baseline)` says whether the request
    /// `request()` would make is the same client request as `baseline`,
    /// ``ViewRequest/sameClientRequest(as:)``, read from whatever the caller holds) is answered
    /// without one. `GET /view?uri=` answers most opens this way.
    public func openView(
        viewURI: String, sameClient: (_ baseline: ViewRequest) -> Bool, request: () -> ViewRequest
    ) throws(EngineError) -> ViewOpening {
        try openView(viewURI: viewURI, fingerprint: { nil }, sameClient: sameClient, request: request)
    }

    /// ``openView(viewURI:sameClient:request:)``, with `fingerprint` the fingerprint of the
    /// fields `request()` would keep (``KeptFieldsFingerprint``), asked to tell several
    /// remembered clients of the view apart and to remember this one. `sameClient` may also say
    /// yes for a request whose memo answer is known to be the baseline's though its fields are
    /// not (the HTTP layer's rollout keys); `fingerprint` must then be equal for the two.
    public func openView(
        viewURI: String, fingerprint: () -> KeptFieldsFingerprint?, sameClient: (_ baseline: ViewRequest) -> Bool,
        request: () -> ViewRequest
    ) throws(EngineError) -> ViewOpening {
        let generation = definitions.generation
        // Asked at most once: by the lookup, or when the open is remembered.
        var asked: KeptFieldsFingerprint??
        func once() -> KeptFieldsFingerprint? {
            if let asked { return asked }
            let made = fingerprint()
            asked = .some(made)
            return made
        }
        let remembered = recentOpenings.outcome(viewURI: viewURI, generation: generation, fingerprint: once, matching: sameClient)
        if case .answer(let answer)? = remembered {
            // The same client request (or one the memo answers alike): the baseline's user and
            // locale are the request's.
            return memoHit(
                viewURI: viewURI, user: answer.user, locale: answer.locale, featureIdentifier: answer.featureIdentifier,
                viewModel: answer.viewModel, timings: answer.timings, id: SessionIdentifier.make())
        }
        return try openView(for: request(), remembered: remembered, generation: generation, fingerprint: once)
    }

    private func openView(
        for request: ViewRequest, remembered: RecentOpenings.Outcome?, generation: Int,
        fingerprint: () -> KeptFieldsFingerprint? = { nil }
    ) throws(EngineError) -> ViewOpening {
        if case .answer(let answer)? = remembered {
            return memoHit(
                viewURI: request.viewURI, user: request.user, locale: request.locale, featureIdentifier: answer.featureIdentifier,
                viewModel: answer.viewModel, timings: answer.timings, id: SessionIdentifier.make())
        }
        guard remembered == nil else {
            // Known not to be reusable: prepare and ask the memo as any start does.
            let prepared = try prepare(request, id: nil)
            guard let (entry, shared) = memoized(prepared) else { return .later(PendingView(engine: self, prepared: prepared)) }
            return memoHit(
                viewURI: request.viewURI, user: request.user, locale: request.locale,
                featureIdentifier: prepared.feature.identifier, viewModel: shared, timings: entry.timings, id: prepared.id)
        }
        // A client request not seen lately: what keeps the key valid is collected as the key is
        // made (each operation asked for its key and lifetime together), and the key notes
        // whether it read the session identifier; then whether the memo's answer may be reused
        // for the same client request is known without a second key.
        let (feature, operations, id) = try chain(for: request, id: nil)
        let reads = SessionIDReads()
        var collector = MemoKeyChecks.Collector(wanted: true)
        let key = environment.memo == nil ? nil : ChainMemo.key(
            feature: feature, operations: operations, request: request, connectivity: request.connectivity, sessionID: id,
            sessionIDReads: reads, checks: &collector)
        let checks = collector.checks
        let prepared = PreparedView(feature: feature, operations: operations, request: request, id: id, memoKey: key)
        // Not in the memo yet: the run fills it, and a later open remembers the answer.
        guard let (entry, shared) = memoized(prepared) else { return .later(PendingView(engine: self, prepared: prepared)) }
        if let checks, !reads.happened {
            recentOpenings.remember(
                .answer(
                    RecentOpenings.Answer(
                        featureIdentifier: feature.identifier, viewModel: shared, timings: entry.timings, user: request.user,
                        locale: request.locale)),
                for: request, generation: generation, checks: checks, fingerprint: fingerprint())
        } else {
            recentOpenings.remember(.prepare, for: request, generation: generation, fingerprint: fingerprint())
        }
        return memoHit(
            viewURI: request.viewURI, user: request.user, locale: request.locale, featureIdentifier: feature.identifier,
            viewModel: shared, timings: entry.timings, id: id)
    }

    /// An open the chain memo answered: reported as a memo hit, with a lazy token.
    private func memoHit(
        viewURI: String, user: HubUser?, locale: String?, featureIdentifier: String, viewModel: ViewModel,
        timings: [OperationTiming], id: String
    ) -> ViewOpening {
        environment.chainObserver?(ChainReport(featureIdentifier: featureIdentifier, timings: timings, failure: nil))
        return .now(
            token: issueToken(id: id, viewURI: viewURI, lazy: true, user: user, locale: locale),
            state: ViewState(viewModel: viewModel, version: 1, failure: nil, timings: timings))
    }
}
