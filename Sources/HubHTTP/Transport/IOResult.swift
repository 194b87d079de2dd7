#if canImport(Glibc)
import Glibc
#endif

/// The result of a non-blocking read or write: `EAGAIN` is a value, not a failure.
enum IOResult: Equatable {
    case bytes(Int)
    case wouldBlock
    /// End of stream or a connection error (reset, broken pipe): the connection is done.
    case closed
}
