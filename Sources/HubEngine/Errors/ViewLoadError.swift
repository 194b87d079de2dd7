import HubModel

/// A view load that failed: the last operation's error (S92), with the operation named.
public struct ViewLoadError: Error, Sendable, CustomStringConvertible {
    /// The failing operation's position in the chain.
    public let operationIndex: Int
    /// The failing operation's name.
    public let operationName: String
    /// What the operation threw.
    public let underlying: any Error

    public init(operationIndex: Int, operationName: String, underlying: any Error) {
        self.operationIndex = operationIndex
        self.operationName = operationName
        self.underlying = underlying
    }

    public var description: String { "operation \(operationIndex) '\(operationName)' failed: \(underlying)" }
}
