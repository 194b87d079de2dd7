import Foundation

/// Runs blocking socket or process work on a thread of its own, never on the cooperative pool
/// nor on Dispatch's global queues: both are as wide as the machine (two threads here), the
/// server under test needs them, and blocking work there has held a request past the server's
/// timeouts. The one policy for every test that blocks.
public func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
