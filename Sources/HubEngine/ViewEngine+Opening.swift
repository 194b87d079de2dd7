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
        case ready(token: SessionToken, state: ViewState)
        /// The chain must run: ``PendingView/run(admission:)`` runs it, with what was made already.
        case pending(PendingView)
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
        guard let feature = features.feature(for: request.viewURI) else {
            throw EngineError(.featureNotFound, "no feature serves '\(request.viewURI)'")
        }
        let operations = try feature.makeOperations(for: request)
        let id = given ?? SessionIdentifier.make()
        let key = environment.memo == nil ? nil : ChainMemo.key(
            feature: feature, operations: operations, request: request, connectivity: request.connectivity, sessionID: id)
        return PreparedView(feature: feature, operations: operations, request: request, id: id, memoKey: key)
    }

    /// Opens a view for a client that gets only its token (`GET /view?uri=`), without suspending:
    /// `ready` when the chain memo answers it (the lazy token creates the session on first use,
    /// so a one-shot view costs no session), else `pending` with the chain to run in a stored
    /// session, as a new session's. Throws as ``openSession(for:initialViewModel:lazy:admission:)``.
    public func openView(for request: ViewRequest) throws(EngineError) -> ViewOpening {
        let prepared = try prepare(request, id: nil)
        guard let (entry, shared) = memoized(prepared) else { return .pending(PendingView(engine: self, prepared: prepared)) }
        environment.chainObserver?(ChainReport(featureIdentifier: prepared.feature.identifier, timings: entry.timings, failure: nil))
        return .ready(
            token: issueToken(id: prepared.id, viewURI: request.viewURI, lazy: true),
            state: ViewState(viewModel: shared, version: 1, failure: nil, timings: entry.timings))
    }
}
