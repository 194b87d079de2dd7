import HubModel

/// An operation that appends content for following pages (S119..S126). The page builder
/// already holds everything loaded so far.
public protocol ContentOperationWithPaginatedContent: ContentOperation {
    func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws
}
