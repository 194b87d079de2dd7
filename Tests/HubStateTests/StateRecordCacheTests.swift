import HubEngine
@testable import HubState
import HubSync
import HubTestSupport
import Testing

/// ``StateRecordCache/remove(_:unlessAt:)``, what a PostgreSQL store does with a change its
/// feed reports: a record at the reported version stays (a store's own write, reported back);
/// any other is forgotten, and a read begun before the change is not kept.
@Suite struct StateRecordCacheTests {
    static func record(_ version: Int64) -> StateRecord {
        StateRecord(bytes: Array("\(version)".utf8), version: version, shape: 1, expiresAt: nil)
    }

    @Test("a change reported at the version held keeps the record; another version forgets it")
    func reportedVersion() throws {
        let cache = StateRecordCache(maxBytes: 1 << 20)
        let key = try #require(StateKey(rawValue: "session/s/a"))
        cache.storeWritten(Self.record(3), for: key)
        cache.remove(key, unlessAt: 3)
        #expect(cache.record(key, now: 0) == Self.record(3), "the store's own write, reported back")
        cache.remove(key, unlessAt: 4)
        #expect(cache.record(key, now: 0) == nil, "another writer's version")
        #expect(cache.count == 0)
    }

    @Test("a change reported for a key not held still stops a read begun before it from being kept")
    func readInFlight() throws {
        let cache = StateRecordCache(maxBytes: 1 << 20)
        let key = try #require(StateKey(rawValue: "session/s/b"))
        let before = cache.generation
        cache.remove(key, unlessAt: 2)
        cache.storeRead(Self.record(1), for: key, generation: before)
        #expect(cache.record(key, now: 0) == nil, "read before the change: not kept")
        let after = cache.generation
        cache.storeRead(Self.record(2), for: key, generation: after)
        #expect(cache.record(key, now: 0) == Self.record(2))
    }

    @Test("a write stored while its own change is reported from another thread is never lost to it")
    func writeAndReportRace() async throws {
        let cache = StateRecordCache(maxBytes: 1 << 20)
        let key = try #require(StateKey(rawValue: "session/s/c"))
        // Each round: the writer stores version n while the feed reports version n (the same
        // write, reported back). Checked and removed in two steps, the report could find nothing
        // held, then remove what the writer stored in between.
        for version in Int64(1)...2_000 {
            let gate = ThreadGate()
            let reported = Task.detached {
                gate.wait()
                cache.remove(key, unlessAt: version)
            }
            gate.open()
            cache.storeWritten(Self.record(version), for: key)
            await reported.value
            #expect(cache.record(key, now: 0) == Self.record(version), "round \(version)")
        }
    }
}
