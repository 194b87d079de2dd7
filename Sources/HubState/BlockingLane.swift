import Dispatch
import HubEngine

/// A serial queue for one database connection's blocking calls: the caller's task suspends
/// while the call runs on the lane's thread, so no event loop and no pool thread of Swift's
/// cooperative executor ever waits on the database.
final class BlockingLane: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` on the lane and returns its result.
    func run<Value: Sendable>(_ body: @escaping @Sendable () throws(StateError) -> Value) async throws(StateError) -> Value {
        let result: Result<Value, StateError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(StateError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
