import HubModel

/// The error of an operation that missed its deadline. It flows down the chain as
/// `previousError` like any other error.
public struct OperationTimeoutError: Error, Sendable, CustomStringConvertible {
    public let operationName: String
    public let deadline: Duration

    public init(operationName: String, deadline: Duration) {
        self.operationName = operationName
        self.deadline = deadline
    }

    public var description: String { "operation '\(operationName)' did not finish within \(deadline)" }
}
