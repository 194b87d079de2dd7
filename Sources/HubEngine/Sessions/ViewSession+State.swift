import HubModel

extension ViewSession {
    /// The state access of operation `index` in a run that records into `log`.
    func stateAccess(operationIndex index: Int, log: StateTouchLog?) -> StateAccess {
        StateAccess(
            store: environment.stateStore, settings: environment.stateSettings, sessionID: id, user: user, log: log,
            operationIndex: index, counters: environment.counters, wallClock: environment.wallClock, followed: stateReads)
    }

    /// Keeps what a run read (`log`), replacing what operations `range` read before (a main
    /// run re-ran them; a page run replaces nothing), and follows the keys of every operation's
    /// latest run.
    func recordStateReads(_ log: StateTouchLog, operations range: Range<Int>) {
        let touches = log.recorded
        guard !touches.isEmpty || !stateReads.isEmpty else { return }
        var reads = stateReads.filter { !range.contains($0.operation) }
        var awaited = awaitedStateVersions
        for touch in touches {
            if let index = reads.firstIndex(where: { $0.operation == touch.operation && $0.key == touch.key }) {
                reads[index].version = touch.version
            } else {
                reads.append(
                    StateRead(operation: touch.operation, key: touch.key, version: touch.version, seen: touch.replaced ?? touch.version))
            }
            awaited[touch.key] = nil
        }
        // An emptied table gives its storage back (a session holds this between runs).
        awaitedStateVersions = awaited.isEmpty ? [:] : awaited
        let before = Set(stateReads.map(\.key))
        stateReads = reads
        let after = Set(reads.map(\.key))
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
    ///
    /// A change the run under way wrote itself (a content operation keeping a counter) is not one:
    /// a session's own writes never re-run its own chain. Too many re-runs a second are a loop
    /// (``StateRerunGuard``): reported, then paused.
    func stateDidChange(_ key: StateKey, version: Int64) {
        guard !isClosed, awaitedStateVersions[key] != version, !wroteItself(key, version: version),
            let index = firstReader(of: key, notAt: version)
        else { return }
        let now = environment.viewClock()
        var rerunGuard = stateRerunGuard ?? StateRerunGuard(now: now)
        let verdict = rerunGuard.admit(now: now)
        stateRerunGuard = rerunGuard
        switch verdict {
        case .run: break
        case .paused: return
        case .loopDetected:
            environment.counters.countStateRerunLoop()
            environment.stateLoopObserver?(
                StateRerunLoop(
                    featureIdentifier: feature.identifier, operationName: operations.indices.contains(index) ? operations[index].name : "",
                    key: Self.loggable(key)))
            return
        }
        awaitedStateVersions[key] = version
        environment.counters.countStateRerun()
        enqueue(.main(from: index))
        startDrivingIfNeeded()
    }

    /// Whether a chain run or an action of this session under way wrote `key` at `version`.
    private func wroteItself(_ key: StateKey, version: Int64) -> Bool {
        ownStateLogs.contains { $0.wrote(key, version: version) }
    }

    /// Runs `body` with `log` counted as the session's own (its writes re-run nothing here).
    func withOwnStateLog<T>(_ log: StateTouchLog?, _ body: () async throws -> T) async rethrows -> T {
        guard let log else { return try await body() }
        ownStateLogs.append(log)
        defer { endOwnStateLog(log) }
        return try await body()
    }

    /// `log` is no longer under way. The list's buffer goes with its last log: a session holds
    /// no buffer between runs (48 bytes of every held session that ever ran).
    func endOwnStateLog(_ log: StateTouchLog) {
        ownStateLogs.removeAll { $0 === log }
        if ownStateLogs.isEmpty { ownStateLogs = [] }
    }

    /// A key as a log may show it: a session key without the session's identifier.
    static func loggable(_ key: StateKey) -> String {
        guard key.rawValue.hasPrefix("session/") else { return key.rawValue }
        let parts = key.rawValue.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        return "session/…/" + (parts.count == 3 ? String(parts[2]) : "")
    }

    private func firstReader(of key: StateKey, notAt version: Int64) -> Int? {
        var lowest: Int?
        // A version the operation's latest run saw (it read it, then wrote the next one) is not
        // news: its change report can arrive after the run, late, and must not re-run it.
        for read in stateReads where read.key == key && read.version != version && read.seen != version {
            lowest = min(lowest ?? read.operation, read.operation)
        }
        return lowest
    }
}

/// A key an operation's latest run read, with the version it saw: a session keeps one per key
/// and operation, in one list (a table per operation cost more than the reads themselves).
struct StateRead {
    let operation: Int
    let key: StateKey
    /// The version the run left the key at (the last it read or wrote).
    var version: Int64
    /// The version the run first saw (read) of the key.
    var seen: Int64
}
