import HubModel

extension ViewSession {
    /// The state access of operation `index` in a run that records into `log`.
    func stateAccess(operationIndex index: Int, log: StateTouchLog?) -> StateAccess {
        StateAccess(
            store: environment.stateStore, settings: environment.stateSettings, sessionID: id, log: log,
            operationIndex: index, counters: environment.counters, wallClock: environment.wallClock)
    }

    /// Keeps what a run read (`log`), replacing what operations `range` read before (a main
    /// run re-ran them; a page run replaces nothing), and follows the keys of every operation's
    /// latest run.
    func recordStateReads(_ log: StateTouchLog, operations range: Range<Int>) {
        let touches = log.recorded
        guard !touches.isEmpty || !stateReads.isEmpty else { return }
        var reads = stateReads
        for index in range { reads[index] = nil }
        for touch in touches {
            reads[touch.operation, default: [:]][touch.key] = touch.version
            awaitedStateVersions[touch.key] = nil
        }
        let before = Set(stateReads.values.flatMap(\.keys))
        stateReads = reads
        let after = Set(reads.values.flatMap(\.keys))
        if before != after { environment.stateWatchers.follow(self, keys: after) }
    }

    /// The first operation that read one of the keys `log` wrote at an older version, as work
    /// for an action's pipeline; the written versions are then awaited (their change reports
    /// from the store do not schedule the run again).
    func stateWork(forWritesIn log: StateTouchLog) -> Work? {
        var lowest: Int?
        for touch in log.recorded {
            awaitedStateVersions[touch.key] = touch.version
            guard let index = firstReader(of: touch.key, notAt: touch.version) else { continue }
            lowest = min(lowest ?? index, index)
        }
        return lowest.map { .main(from: $0) }
    }

    /// A key this session's operations read changed to `version` (0: deleted), here or on another
    /// replica: re-runs the chain from the first operation that read an older version, and the
    /// new view reaches the session's listeners.
    func stateDidChange(_ key: StateKey, version: Int64) {
        guard !isClosed, awaitedStateVersions[key] != version,
            let index = firstReader(of: key, notAt: version)
        else { return }
        awaitedStateVersions[key] = version
        environment.counters.countStateRerun()
        enqueue(.main(from: index))
        startDrivingIfNeeded()
    }

    private func firstReader(of key: StateKey, notAt version: Int64) -> Int? {
        var lowest: Int?
        for (index, reads) in stateReads {
            guard let seen = reads[key], seen != version else { continue }
            lowest = min(lowest ?? index, index)
        }
        return lowest
    }
}
