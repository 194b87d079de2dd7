import HubModel

extension ViewEngine {
    /// The store operations' and actions' state lives in.
    public var stateStore: any StateStore { configuration.stateStore }

    /// Sessions that follow at least one state key now.
    public var sessionsFollowingState: Int { environment.stateWatchers.sessionCount }

    /// A change the store reported: sessions whose operations read the key re-run from the first
    /// that did; a `revoked/` key revokes its token here too. A resync compares every followed
    /// key's version with the store's and reloads the revocations.
    func stateEvent(_ event: StateStoreEvent) {
        switch event {
        case .changed(let key, let version):
            if let id = key.revokedSessionID {
                guard version > 0 else { return }
                Task { await self.adoptRevocation(id, key: key) }
                return
            }
            for session in environment.stateWatchers.sessions(following: key) {
                Task { await session.stateDidChange(key, version: version) }
            }
        case .resync:
            Task { await self.resynchronizeState() }
        }
    }

    /// Re-reads the versions of every followed key and the revocations, and writes the
    /// revocations that waited for the store (a notification connection came up: changes may
    /// have been missed, and the store is back).
    func resynchronizeState() async {
        let keys = environment.stateWatchers.followedKeys
        if let versions = try? await stateStore.versions(of: keys) {
            for key in keys {
                let version = versions[key] ?? 0
                for session in environment.stateWatchers.sessions(following: key) {
                    await session.stateDidChange(key, version: version)
                }
            }
        }
        _ = try? await loadRevocations()
        await flushRevocations()
    }

    /// Revokes here every token the store records as revoked (a shared store: revoked on any
    /// replica); returns how many it holds. From its first success on, tokens this process does
    /// not hold are trusted again (``revocationsLoaded``). The server calls it at start, retrying
    /// until it succeeds, and a shared store's change feed on each connect.
    @discardableResult
    public func loadRevocations() async throws(StateError) -> Int {
        let records = try await stateStore.records(withPrefix: "revoked/", now: configuration.wallClock())
        for (key, record) in records {
            guard let id = key.revokedSessionID, let expiry = record.expiresAt else { continue }
            revoked.revoke(id, until: expiry)
            sessions.remove(id)
        }
        revocationOutbox.markLoaded()
        return records.count
    }

    /// Records the revocation of session `id` (until `expiry`) in the store, so every replica
    /// sharing it refuses the token. Already recorded is success.
    func storeRevocation(_ id: String, until expiry: Int64) async throws(StateError) {
        let key = StateKey(revokedSession: id)
        let value: JSONValue = ["until": .int(Int(expiry))]
        do {
            _ = try await stateStore.write(
                key, bytes: value.jsonBytes, shape: 1, expected: 0, expiresAt: expiry, now: configuration.wallClock())
        } catch where error.code == .conflict {
            return
        }
    }

    private func adoptRevocation(_ id: String, key: StateKey) async {
        guard let record = try? await stateStore.read(key, now: configuration.wallClock()), let expiry = record.expiresAt
        else { return }
        revoked.revoke(id, until: expiry)
        sessions.remove(id)
    }
}
