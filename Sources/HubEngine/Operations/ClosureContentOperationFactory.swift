/// A factory from a closure.
public struct ClosureContentOperationFactory: ContentOperationFactory {
    let make: @Sendable (ViewRequest) -> [any ContentOperation]

    public init(_ make: @escaping @Sendable (ViewRequest) -> [any ContentOperation]) {
        self.make = make
    }

    public func makeOperations(for request: ViewRequest) -> [any ContentOperation] {
        make(request)
    }
}
