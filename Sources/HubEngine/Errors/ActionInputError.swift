/// What an action throws to refuse the client's input (its custom data): a title too long, a
/// value of the wrong kind. The server answers `422 invalid_body` with ``detail``, and the
/// action changes nothing (throw it before writing).
public struct ActionInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for the client (the problem's `detail`).
    public let detail: String

    public init(_ detail: String) {
        self.detail = detail
    }

    public var description: String { detail }
}
