import HubModel

/// Errors the engine reports to its caller, each with a stable code the server maps to a status.
public struct EngineError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Code: String, Sendable {
        /// No feature serves the view URI (404).
        case featureNotFound = "feature_not_found"
        /// The session id is unknown or expired (404).
        case sessionNotFound = "session_not_found"
        /// The action's namespace has no factory, or the factory does not know the name (404).
        case actionNotFound = "action_not_found"
        /// The component is not in the session's current view model (404).
        case componentNotFound = "component_not_found"
        /// A feature's factories produced no operation (S85): a configuration error (500).
        case noOperations = "no_operations"
        /// The session has no view model yet (its first load failed).
        case noViewModel = "no_view_model"
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

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
