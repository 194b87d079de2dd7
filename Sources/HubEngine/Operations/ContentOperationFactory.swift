/// Creates a feature's operations for a new session (S84).
public protocol ContentOperationFactory: Sendable {
    func makeOperations(for request: ViewRequest) -> [any ContentOperation]
}
