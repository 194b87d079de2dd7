import HubSync

/// Holds a background task (the session-expiry sweep) so shutdown can stop it.
final class SweeperBox: Sendable {
    private let task = Locked<Task<Void, Never>?>(nil)

    func start(_ make: () -> Task<Void, Never>) {
        let started = make()
        task.withLock { $0 = started }
    }

    func stop() {
        task.withLock { $0 }?.cancel()
    }
}
