/// The isolation of a connection's tasks (its requests' responders, its event streams): an actor
/// whose executor is the connection's ``EventLoop``. A task isolated to it runs its jobs on the
/// loop's thread, and so do the `nonisolated(nonsending)` responders and middleware it calls;
/// their executor checks compare identities and take no lock. Code a responder awaits that is
/// isolated elsewhere (another actor, a `@concurrent` function) runs there and comes back.
actor LoopIsolation {
    nonisolated let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    /// Starts `operation` as a task isolated to this actor, from code on the loop's thread (an
    /// event, a timer, a job). Its first job goes on the loop's local queue: it runs after the
    /// current event batch, with no wake-up and no lock.
    nonisolated func startTask(_ operation: @escaping @Sendable (isolated LoopIsolation) async -> Void) -> Task<Void, Never> {
        assumeIsolated { isolation in
            Task {
                await operation(isolation)
            }
        }
    }
}
