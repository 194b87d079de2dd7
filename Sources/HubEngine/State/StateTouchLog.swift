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
    /// Writes (and deletes) of this run being stored now, with the version each will make if it
    /// succeeds (a write expecting version N makes N + 1; a delete 0): the store may report the
    /// change before the write returns and is recorded (``beginWriting(_:making:)``).
    private let writing = Locked<[(key: StateKey, version: Int64)]>([])

    func record(
        operation: Int, key: StateKey, version: Int64, wrote: Bool = false, unanswered: Bool = false, replaced: Int64? = nil
    ) {
        touches.withLock {
            $0.append(
                Touch(operation: operation, key: key, version: version, wrote: wrote, unanswered: unanswered, replaced: replaced))
        }
    }

    /// Whether the run itself wrote `key` at `version` (0: deleted it), or is writing it at that
    /// version now: a store may deliver a write's change report before the write returns to be
    /// recorded, and that report is the run's own too.
    func wrote(_ key: StateKey, version: Int64) -> Bool {
        if writing.withLock({ $0.contains { $0.key == key && $0.version == version } }) { return true }
        return touches.withLock { $0.contains { $0.wrote && $0.key == key && $0.version == version } }
    }

    /// Marks a write of `key` that will make `version` (if it succeeds) as this run's until
    /// ``endWriting(_:making:)``, called after the write is recorded.
    func beginWriting(_ key: StateKey, making version: Int64) {
        writing.withLock { $0.append((key, version)) }
    }

    /// Ends a ``beginWriting(_:making:)``.
    func endWriting(_ key: StateKey, making version: Int64) {
        writing.withLock { writing in
            if let index = writing.firstIndex(where: { $0.key == key && $0.version == version }) { writing.remove(at: index) }
        }
    }

    /// What was recorded, in order.
    var recorded: [Touch] { touches.withLock { $0 } }
}
