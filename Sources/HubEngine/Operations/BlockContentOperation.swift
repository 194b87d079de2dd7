import HubModel

/// An operation from a closure that runs and finishes synchronously (S130).
public struct BlockContentOperation: ContentOperation {
    public let name: String
    let block: @Sendable (inout ViewModelBuilder, ContentContext) throws -> Void

    public init(name: String = "block", _ block: @escaping @Sendable (inout ViewModelBuilder, ContentContext) throws -> Void) {
        self.name = name
        self.block = block
    }

    public var completesSynchronously: Bool { true }

    public func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try block(&builder, context)
    }
}
