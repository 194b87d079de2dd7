import HubSync

/// The keys one chain run read (by operation) or one action wrote, with the versions seen: the
/// session follows the keys its operations read, and an action's writes reschedule exactly the
/// operations that read them. Shared by the contexts of one run or one action.
final class StateTouchLog: Sendable {
    struct Touch: Sendable, Equatable {
        let operation: Int
        let key: StateKey
        let version: Int64
        /// A write (or delete) by the run itself, not a read.
        var wrote = false
        /// A read the store could not answer, served as "no value" (`serve-without-state`).
        var unanswered = false
        /// For a write: the version it replaced (the one the run saw before it wrote).
        var replaced: Int64?
    }

    private let touches = Locked<[Touch]>([])
    /// Keys a write (or delete) of this run is storing now, by how many writes: the store may
    /// report the change before the write returns and is recorded (``beginWriting(_:)``).
    private let writing = Locked<[StateKey: Int]>([:])

    func record(
        operation: Int, key: StateKey, version: Int64, wrote: Bool = false, unanswered: Bool = false, replaced: Int64? = nil
    ) {
        touches.withLock {
            $0.append(
                Touch(operation: operation, key: key, version: version, wrote: wrote, unanswered: unanswered, replaced: replaced))
        }
    }

    /// Whether the run itself wrote `key` at `version` (0: deleted it), or is writing `key` now:
    /// a store may deliver the change report of a write before the write returns to be recorded,
    /// and that report is the run's own too.
    func wrote(_ key: StateKey, version: Int64) -> Bool {
        if writing.withLock({ ($0[key] ?? 0) > 0 }) { return true }
        return touches.withLock { $0.contains { $0.wrote && $0.key == key && $0.version == version } }
    }

    /// Marks `key` as being written by this run until ``endWriting(_:)`` (after the write is
    /// recorded).
    func beginWriting(_ key: StateKey) {
        writing.withLock { $0[key, default: 0] += 1 }
    }

    /// Ends a ``beginWriting(_:)``.
    func endWriting(_ key: StateKey) {
        writing.withLock { writing in
            let left = (writing[key] ?? 1) - 1
            writing[key] = left > 0 ? left : nil
        }
    }

    /// What was recorded, in order.
    var recorded: [Touch] { touches.withLock { $0 } }
}
