/// Why a state operation failed. The server maps each code to a problem: `conflict` to 409
/// `state_conflict`, `tooLarge` to 413 `state_too_large`, `unavailable` to 503
/// `state_unavailable` with `Retry-After`, `outcomeUnknown` to 503 `state_outcome_unknown`
/// without, `invalidKey` to 500, `authenticationRequired` to 401.
public struct StateError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The stored version is not the one the write expected: read again and retry.
        case conflict = "state_conflict"
        /// The value's JSON is over `state.maxValueBytes`, or the write would take its session's or
        /// subject's values over `state.maxSessionBytes` / `state.maxSubjectBytes` (``StateQuota``).
        case tooLarge = "state_too_large"
        /// The store cannot be reached or refused the operation.
        case unavailable = "state_unavailable"
        /// A write was sent and the connection dropped before its answer came: it may or may not
        /// have been committed (503 `state_outcome_unknown`, no `Retry-After`).
        case outcomeUnknown = "state_outcome_unknown"
        /// A key the store cannot hold (``StateKey``).
        case invalidKey = "state_invalid_key"
        /// ``StateScope/user`` in a request with no verified user (401 `authentication_required`).
        case authenticationRequired = "authentication_required"
    }

    public let code: Code
    public let detail: String
    /// For `conflict`: the version stored now (0: none).
    public let currentVersion: Int64?

    public init(_ code: Code, _ detail: String, currentVersion: Int64? = nil) {
        self.code = code
        self.detail = detail
        self.currentVersion = currentVersion
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
