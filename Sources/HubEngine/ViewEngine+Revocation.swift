extension ViewEngine {
    /// Revokes the token `presented` is (`DELETE /view`); answers whether its session was held.
    ///
    /// A token that verifies: its session ends here, and when it named a stored session (held
    /// here, or issued stored: kind `s`) or its session has state in the store, it is refused
    /// in this process until it would have expired and the revocation is recorded in the state
    /// store (a shared store: every replica refuses it), its state deleted. A lazy token that
    /// named nothing stored is forgotten (nothing recorded: it can reach nothing a new view for
    /// its URI could not).
    ///
    /// When the store cannot record it (unavailable, or its answer was lost), the revocation is
    /// refused here at once, kept in memory and written when the store returns
    /// (``flushRevocations()``), and this throws `unavailable`; past ``pendingRevocations``'s
    /// bound (10,000) nothing is changed and it throws `unavailable` too. A token revoked
    /// already (its MAC verifies) answers as its first revocation did, once the store has it:
    /// `false` when recorded, `unavailable` while still waiting for the store.
    /// A token that does not verify is refused (and recorded nowhere).
    public func revoke(_ presented: PresentedToken) async throws(StateError) -> Result<Bool, SessionToken.Rejection> {
        guard let token = presented.token else {
            guard presented.rejection == .revoked, let id = SessionToken.identifier(of: presented.text) else {
                return .failure(presented.rejection ?? .malformed)
            }
            if let entry = revocationOutbox.entry(id) {
                do {
                    try await record(entry)
                } catch where error.code == .conflict {
                    throw StateError(.unavailable, "this token's revocation is being written: retry")
                }
            }
            return .success(false)
        }
        guard revocationOutbox.hasRoom || revocationOutbox.entry(token.id) != nil else {
            throw StateError(.unavailable, "too many revocations are waiting for the state store")
        }
        let held = sessions.remove(token.id)
        let entry = RevocationOutbox.Entry(
            id: token.id, expiry: token.expiry(maxAge: tokenMaxAgeSeconds), namedStoredSession: held || !token.lazy)
        if entry.namedStoredSession { revoked.revoke(entry.id, until: entry.expiry) }
        do {
            try await record(entry)
        } catch where error.code == .conflict {
            // Another request revokes it now: answered as a retry would be, once that is written.
            throw StateError(.unavailable, "this token's revocation is being written: retry")
        }
        return .success(held)
    }

    /// Revocations waiting for the state store (it was unavailable when they were made).
    public var pendingRevocations: Int { revocationOutbox.count }

    /// Whether the state store's revocations have been loaded (``loadRevocations()``); until
    /// then, with a shared store, a token this process does not hold is answered
    /// `state_unavailable`. A store no other process writes to starts loaded.
    public var revocationsLoaded: Bool { revocationOutbox.isLoaded }

    /// Writes the revocations the store could not record when they were made; returns how many
    /// still wait (it stops at the first the store refuses). Called when the store comes back
    /// (the change feed reconnects) and by the server's recovery loop.
    @discardableResult
    public func flushRevocations() async -> Int {
        for entry in revocationOutbox.entries where revocationOutbox.entry(entry.id) != nil {
            do { try await record(entry) } catch where error.code == .conflict { continue } catch { break }
        }
        return revocationOutbox.count
    }

    /// Records `entry` in the store (its state deleted), or forgets it when it named nothing
    /// stored; on failure keeps it (refused here meanwhile) and throws `unavailable`. Throws
    /// `conflict` without doing anything while another caller records the same token.
    private func record(_ entry: RevocationOutbox.Entry) async throws(StateError) {
        guard revocationOutbox.beginRecording(entry.id) else {
            throw StateError(.conflict, "this token's revocation is being written now")
        }
        defer { revocationOutbox.endRecording(entry.id) }
        var mustRecord = entry.namedStoredSession
        do {
            if mustRecord {
                try await storeRevocation(entry.id, until: entry.expiry)
                _ = try await stateStore.deleteAll(withPrefix: "session/\(entry.id)/")
            } else if try await stateStore.deleteAll(withPrefix: "session/\(entry.id)/") > 0 {
                // A lazy token whose session had state (used on some replica): recorded.
                mustRecord = true
                revoked.revoke(entry.id, until: entry.expiry)
                try await storeRevocation(entry.id, until: entry.expiry)
            } else {
                revoked.forget(entry.id)
            }
            revocationOutbox.remove(entry.id)
        } catch {
            revoked.revoke(entry.id, until: entry.expiry)
            revocationOutbox.add(
                RevocationOutbox.Entry(id: entry.id, expiry: entry.expiry, namedStoredSession: mustRecord))
            guard error.code == .unavailable || error.code == .outcomeUnknown else { throw error }
            throw StateError(.unavailable, "the revocation waits for the state store: \(error.detail)")
        }
    }
}
