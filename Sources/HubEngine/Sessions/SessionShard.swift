import HubPrimitives
/// One shard of the ``SessionStore``: its sessions, their eviction order as a segmented LRU,
/// and the identifiers it recently let go of. Touched only under its shard's lock.
///
/// Two segments: *probation* holds sessions stored (opened, rebuilt, or a lazy token's first
/// use) and not used since; *protected* holds sessions used again (a later request naming
/// their token). Eviction takes the least recently used probation session; a protected one is
/// never evicted to make room (only expiry or an end removes it). A session followed over SSE
/// found at the front of probation is promoted instead of evicted. So a flood of one-shot views
/// evicts only its own kind.
///
/// Each segment's order is an append-only log of records (the front is the least recently
/// used); a use appends a fresh record only when the session's record is older than the newest
/// quarter of the log, so a hot session does not grow the log per request. Stale records (tick
/// no longer the entry's) are skipped and compacted away.
struct SessionShard {
    struct Entry {
        let session: ViewSession
        var lastUse: StoreTime
        var tick: UInt64
        var isProtected: Bool
        /// What a reload-free load answers without the session's actor, once published.
        var settled: SettledView? = nil
        /// The session's estimate of the bytes it holds (``ViewSession/retainedBytes``).
        var bytes: Int = 0
        /// Its ``SessionOwner``'s key; 0: no owner.
        var owner: Int = 0
    }

    struct Record {
        let id: String
        let tick: UInt64
        let time: StoreTime
    }

    var entries: [String: Entry] = [:]
    var probation = RingQueue<Record>()
    var protected = RingQueue<Record>()
    var protectedCount = 0
    /// Protected sessions per owner key (owners with none are not kept).
    var protectedByOwner: [Int: Int] = [:]
    /// The most protected sessions one owner may hold in this shard.
    let protectedPerOwner: Int
    /// The sum of the entries' `bytes`.
    var bytes = 0
    var tick: UInt64 = 0
    var statistics = SessionStore.Statistics()
    var removals: RemovalLog

    init(removalCapacity: Int, protectedPerOwner: Int = .max) {
        removals = RemovalLog(capacity: removalCapacity)
        self.protectedPerOwner = max(1, protectedPerOwner)
    }

    /// How many records from the front of probation an owner's new session looks through for
    /// one of the owner's own unused sessions to evict first (bounded: O(1) per insert).
    static let ownVictimWindow = 64

    /// Moves `id` to the back of its segment's order.
    mutating func touch(_ id: String, at time: StoreTime) {
        guard let index = entries.index(forKey: id) else { return }
        tick += 1
        entries.values[index].tick = tick
        // The session's own identifier, not the caller's copy (decoded from a presented token):
        // a record then holds no string of its own.
        let entry = entries.values[index]
        let record = Record(id: entry.session.id, tick: tick, time: time)
        if entry.isProtected { protected.append(record) } else { probation.append(record) }
    }

    /// Moves a probation session to the protected segment, unless its owner holds its share of
    /// protected sessions already (`force`: a session followed over SSE, which is never evicted
    /// anyway): then it moves to the back of probation. Returns whether it was promoted.
    @discardableResult
    mutating func promote(_ id: String, at time: StoreTime, force: Bool = false) -> Bool {
        guard let entry = entries[id], !entry.isProtected else { return false }
        if entry.owner != 0 {
            let held = protectedByOwner[entry.owner, default: 0]
            guard force || held < protectedPerOwner else {
                touch(id, at: time)
                return false
            }
            protectedByOwner[entry.owner] = held + 1
        }
        entries[id]!.isProtected = true
        protectedCount += 1
        touch(id, at: time)
        return true
    }

    /// Removes an entry, keeping the protected counts right.
    mutating func remove(_ id: String) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if entry.isProtected {
            protectedCount -= 1
            if entry.owner != 0 {
                let held = protectedByOwner[entry.owner, default: 1] - 1
                protectedByOwner[entry.owner] = held > 0 ? held : nil
            }
        }
        bytes -= entry.bytes
        return entry
    }

    /// One of `owner`'s own unused sessions among the least recently used of probation
    /// (``ownVictimWindow``), removed: an owner's flood evicts its own sessions before others'.
    mutating func popOwnVictim(owner: Int, isListenedTo: (ViewSession) -> Bool) -> ViewSession? {
        guard owner != 0 else { return nil }
        for offset in 0..<min(Self.ownVictimWindow, probation.count) {
            let record = probation[offset]
            guard let entry = entries[record.id], entry.tick == record.tick, !entry.isProtected, entry.owner == owner,
                !isListenedTo(entry.session)
            else { continue }
            // Its record stays in the log, stale (skipped and compacted away).
            return remove(record.id)?.session
        }
        return nil
    }

    /// The least recently used probation session, removed; listened-to ones are promoted on
    /// the way, and `sparing` (a session that just grew) moves to the back. `nil` when
    /// probation holds none but `sparing`.
    mutating func popVictim(
        isListenedTo: (ViewSession) -> Bool, now: StoreTime, sparing: String? = nil
    ) -> ViewSession? {
        var spared = false
        while let record = probation.popFirst() {
            guard let entry = entries[record.id], entry.tick == record.tick, !entry.isProtected else { continue }
            if isListenedTo(entry.session) {
                promote(record.id, at: now, force: true)
                continue
            }
            if record.id == sparing {
                guard !spared else {
                    touch(record.id, at: now)
                    return nil
                }
                spared = true
                touch(record.id, at: now)
                continue
            }
            return remove(record.id)?.session
        }
        return nil
    }

    /// Drops stale records once a log holds four times more records than sessions
    /// (amortized O(1) per append).
    mutating func compact() {
        let total = probation.count + protected.count
        guard total > 1024, total > 4 * entries.count else { return }
        let entries = self.entries
        probation.retain { entries[$0.id]?.tick == $0.tick }
        protected.retain { entries[$0.id]?.tick == $0.tick }
    }

    mutating func refreshCounts() {
        statistics.active = entries.count
        statistics.protected = protectedCount
        statistics.bytes = bytes
    }
}

/// Identifiers a shard recently let go of, and why, so a rebuild can say whether the session
/// was evicted or expired here (or is unknown: a restart, another replica), and a deleted
/// session is not brought back. Bounded: the oldest are forgotten first. Keys are 64-bit
/// hashes of the identifiers (16 bytes an entry instead of two strings).
struct RemovalLog {
    private var reasons: [UInt64: SessionStore.RemovalReason] = [:]
    private var order = RingQueue<UInt64>()
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    mutating func record(_ id: String, _ reason: SessionStore.RemovalReason) {
        let key = Self.key(id)
        if reasons.updateValue(reason, forKey: key) == nil { order.append(key) }
        while order.count > capacity, let oldest = order.popFirst() { reasons[oldest] = nil }
    }

    func reason(_ id: String) -> SessionStore.RemovalReason? { reasons[Self.key(id)] }

    mutating func forget(_ id: String) { reasons[Self.key(id)] = nil }

    static func key(_ id: String) -> UInt64 {
        FNV1a.hash(id)
    }
}

/// A point in time in 8 bytes (nanoseconds from a process-wide origin) instead of a 16-byte
/// `ContinuousClock.Instant`: the store keeps one per session and one per LRU record.
struct StoreTime {
    let nanoseconds: Int64

    private static let origin = ContinuousClock.now

    init(_ instant: ContinuousClock.Instant) {
        nanoseconds = Int64((instant - Self.origin).nanoseconds)
    }

    static func - (later: StoreTime, earlier: StoreTime) -> Duration {
        .nanoseconds(later.nanoseconds &- earlier.nanoseconds)
    }
}
