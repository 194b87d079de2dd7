/// A failure of the test harness itself (a socket, a child process, a malformed answer), as
/// opposed to an expectation about the code under test.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
