import HubModel

extension ViewEngine {
    /// The view a new session for `request.viewURI` would show (chain memo included) with how
    /// each operation made it (``ViewSession/explanation()``). No session is kept and nothing is
    /// added to the chain memo beyond what ``loadView(for:initialViewModel:)`` adds.
    /// Throws like ``openSession(for:initialViewModel:lazy:admission:)``.
    /// `admission` is asked only when the chain runs (not for a memo hit).
    public nonisolated(nonsending) func explainView(
        for request: ViewRequest, admission: () -> SessionAdmission = { .admit }
    ) async throws(EngineError) -> (state: ViewState, operations: [OperationExplanation]) {
        let started = try await start(
            request, initialViewModel: nil, storage: .none, id: nil, needsSession: true, admission: admission)
        guard let session = started.session else { return (started.state, []) }
        return (started.state, await session.explanation())
    }
}
