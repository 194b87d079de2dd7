import HubSync

/// The keys one chain run read (by operation) or one action wrote, with the versions seen: the
/// session follows the keys its operations read, and an action's writes reschedule exactly the
/// operations that read them. Shared by the contexts of one run or one action.
final class StateTouchLog: Sendable {
    struct Touch: Sendable, Equatable {
        let operation: Int
        let key: StateKey
        let version: Int64
    }

    private let touches = Locked<[Touch]>([])

    func record(operation: Int, key: StateKey, version: Int64) {
        touches.withLock { $0.append(Touch(operation: operation, key: key, version: version)) }
    }

    /// What was recorded, in order.
    var recorded: [Touch] { touches.withLock { $0 } }
}
