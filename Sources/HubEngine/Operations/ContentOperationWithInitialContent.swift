import HubModel

/// An operation that also provides initial content: shown before the chain has run, and
/// when connectivity changes (S111, S116). It must be synchronous and cheap.
public protocol ContentOperationWithInitialContent: ContentOperation {
    func addInitialContent(to builder: inout ViewModelBuilder, context: InitialContentContext)
}
