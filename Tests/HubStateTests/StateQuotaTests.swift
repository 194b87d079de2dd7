import Foundation
import HubEngine
import HubModel
import HubState
import HubSync
import HubTestSupport
import Testing

/// `state.maxSessionBytes` and `state.maxSubjectBytes` (``StateQuota``): every backend sums a
/// scope's values in the same step as the write's compare-and-set, so a write past the quota
/// changes nothing, and concurrent writers (two stores on one SQLite file, two PostgreSQL
/// replicas) cannot pass it together.
@Suite("State quotas")
struct StateQuotaTests {
    /// A session id of its own for each test (so tests sharing a PostgreSQL cluster never meet).
    private static func freshSession() -> String { "q\(UUID().uuidString.prefix(8))" }

    private static func quota(session: String, maxBytes: Int) -> StateQuota {
        StateQuota(prefix: "session/\(session)/", maxBytes: maxBytes, setting: "state.maxSessionBytes")
    }

    /// `count` bytes of JSON: a string of `count - 2` letters.
    private static func json(_ count: Int, _ letter: Character = "x") -> [UInt8] {
        Array("\"\(String(repeating: letter, count: count - 2))\"".utf8)
    }

    @Test("a write past the scope's total is tooLarge and changes nothing; within it, or shrinking, is written", arguments: StateBackend.allCases)
    func quotaOverKeys(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let session = Self.freshSession()
        let quota = Self.quota(session: session, maxBytes: 1000)
        let a = try StateKey("a", in: .session, sessionID: session), b = try StateKey("b", in: .session, sessionID: session)
        #expect(try await store.write(a, bytes: Self.json(600), shape: 1, expected: 0, expiresAt: nil, now: 0, quota: quota) == 1)
        #expect(try await store.write(b, bytes: Self.json(400), shape: 1, expected: 0, expiresAt: nil, now: 0, quota: quota) == 1)
        // 600 + 401 > 1000: refused, b keeps its value and version.
        await #expect(throws: StateError.self) {
            try await store.write(b, bytes: Self.json(401), shape: 1, expected: 1, expiresAt: nil, now: 0, quota: quota)
        }
        do {
            _ = try await store.write(try StateKey("c", in: .session, sessionID: session), bytes: Self.json(2), shape: 1, expected: 0, expiresAt: nil, now: 0, quota: quota)
            Issue.record("a new key past the quota was written")
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.detail.contains("state.maxSessionBytes is 1000"), "\(error.detail)")
        }
        #expect(try await store.read(b, now: 0) == StateRecord(bytes: Self.json(400), version: 1, shape: 1, expiresAt: nil))
        #expect(try await store.read(try StateKey("c", in: .session, sessionID: session), now: 0) == nil)
        // Rewriting a key at its own size, or smaller, is within the total.
        #expect(try await store.write(b, bytes: Self.json(400, "y"), shape: 1, expected: 1, expiresAt: nil, now: 0, quota: quota) == 2)
        #expect(try await store.write(a, bytes: Self.json(100), shape: 1, expected: 1, expiresAt: nil, now: 0, quota: quota) == 2)
        #expect(try await store.write(b, bytes: Self.json(900), shape: 1, expected: 2, expiresAt: nil, now: 0, quota: quota) == 3)
        // A stale version is a conflict, not tooLarge, even when the value is too big.
        await #expect(throws: StateError(.conflict, "'\(b)' is at version 3, not 1", currentVersion: 3)) {
            try await store.write(b, bytes: Self.json(5000), shape: 1, expected: 1, expiresAt: nil, now: 0, quota: quota)
        }
        // The way around: the same write without a quota (the engine's own keys) is not metered.
        #expect(try await store.write(try StateKey("c", in: .session, sessionID: session), bytes: Self.json(500), shape: 1, expected: 0, expiresAt: nil, now: 0) == 1)
    }

    @Test("a scope over a lowered quota may shrink but not grow; other scopes, sibling prefixes and expired values do not count", arguments: StateBackend.allCases)
    func scopesAreSeparate(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let session = Self.freshSession()
        let key = try StateKey("list", in: .session, sessionID: session)
        _ = try await store.write(key, bytes: Self.json(800), shape: 1, expected: 0, expiresAt: nil, now: 0)
        let lowered = Self.quota(session: session, maxBytes: 500)
        await #expect(throws: StateError.self) {
            try await store.write(key, bytes: Self.json(801), shape: 1, expected: 1, expiresAt: nil, now: 0, quota: lowered)
        }
        #expect(try await store.write(key, bytes: Self.json(700), shape: 1, expected: 1, expiresAt: nil, now: 0, quota: lowered) == 2)
        // A session whose id extends this one's, and a subject named like it, are other scopes.
        let longer = try StateKey("list", in: .session, sessionID: session + "0")
        #expect(try await store.write(longer, bytes: Self.json(500), shape: 1, expected: 0, expiresAt: nil, now: 0, quota: Self.quota(session: session + "0", maxBytes: 500)) == 1)
        let subject = try StateKey("list", in: .subject(session), sessionID: session)
        let subjectQuota = StateQuota(prefix: "subject/\(session)/", maxBytes: 500, setting: "state.maxSubjectBytes")
        #expect(try await store.write(subject, bytes: Self.json(500), shape: 1, expected: 0, expiresAt: nil, now: 0, quota: subjectQuota) == 1)
        // An expired value counts as none: its space is free again. (Times a day ahead of the
        // wall clock: the shared test database's other hubs purge what expired by theirs.)
        let later = Int64(Date().timeIntervalSince1970) + 86_400
        let other = Self.freshSession()
        let expiring = try StateKey("old", in: .session, sessionID: other)
        _ = try await store.write(expiring, bytes: Self.json(500), shape: 1, expected: 0, expiresAt: later + 100, now: later)
        let fresh = try StateKey("new", in: .session, sessionID: other)
        await #expect(throws: StateError.self) {
            try await store.write(
                fresh, bytes: Self.json(100), shape: 1, expected: 0, expiresAt: nil, now: later + 50,
                quota: Self.quota(session: other, maxBytes: 500))
        }
        #expect(
            try await store.write(
                fresh, bytes: Self.json(100), shape: 1, expected: 0, expiresAt: nil, now: later + 100,
                quota: Self.quota(session: other, maxBytes: 500)) == 1)
    }

    @Test("storedBytes: every backend tells what its data takes (hub_state_bytes), and it grows with a large value", arguments: StateBackend.allCases)
    func storedBytes(backend: StateBackend) async throws {
        let store = try backend.makeStore()
        defer { store.close() }
        let before = try #require(try await store.storedBytes())
        // 200 KB that compresses badly (PostgreSQL's TOAST compresses what it can).
        var random = SystemRandomNumberGenerator()
        let text = (0..<100_000).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
        _ = try await store.write(try freshKey(), bytes: Array("\"\(text)\"".utf8), shape: 1, expected: 0, expiresAt: nil, now: 0)
        let after = try #require(try await store.storedBytes())
        #expect(after >= before + 50_000, "\(before) -> \(after) bytes")
    }

    @Test("concurrent writers of one scope, on two stores, never pass the quota together", arguments: StateBackend.allCases)
    func concurrentWriters(backend: StateBackend) async throws {
        let (first, second) = try backend.makePair()
        defer {
            first.close()
            second.close()
        }
        let session = Self.freshSession()
        let quota = Self.quota(session: session, maxBytes: 1000)
        // 24 writers of 100 bytes each, half on each store: exactly 10 fit.
        let outcomes = try await withThrowingTaskGroup(of: StateError.Code?.self) { group in
            for index in 0..<24 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    let key = try StateKey("k\(index)", in: .session, sessionID: session)
                    do {
                        _ = try await store.write(key, bytes: Self.json(100), shape: 1, expected: 0, expiresAt: nil, now: 0, quota: quota)
                        return nil
                    } catch let error as StateError {
                        return error.code
                    }
                }
            }
            return try await group.reduce(into: [StateError.Code?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 10, "\(outcomes)")
        #expect(outcomes.filter { $0 == .tooLarge }.count == 14, "\(outcomes)")
        let stored = try await first.records(withPrefix: quota.prefix, now: 0)
        #expect(stored.reduce(0) { $0 + $1.1.bytes.count } == 1000)
    }

    @Test("StateAccess.update loops on conflicts and stops at the quota: growing writers on one session end at its total", arguments: StateBackend.allCases)
    func updateLoopsStopAtTheQuota(backend: StateBackend) async throws {
        let (first, second) = try backend.makePair()
        defer {
            first.close()
            second.close()
        }
        let session = Self.freshSession()
        let settings = StateSettings(maxSessionBytes: 2000)
        // Eight writers each append 50-byte items to one of two lists until the session is full.
        let refused = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<8 {
                let access = StateAccess(store: writer.isMultiple(of: 2) ? first : second, sessionID: session, settings: settings)
                group.addTask {
                    var refusals = 0
                    for _ in 0..<20 {
                        do {
                            try await access.update("list\(writer % 2)") { value in
                                var items = value?.arrayValue ?? []
                                items.append(.string(String(repeating: "i", count: 48)))
                                value = .array(items)
                                return true
                            }
                        } catch let error as StateError where error.code == .tooLarge {
                            refusals += 1
                        } catch let error as StateError where error.code == .conflict {
                            continue  // the update's attempts ran out against the others: try again
                        }
                    }
                    return refusals
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(refused > 0)
        let stored = try await first.records(withPrefix: "session/\(session)/", now: 0)
        let total = stored.reduce(0) { $0 + $1.1.bytes.count }
        #expect(total <= 2000 && total > 2000 - 2 * 51, "the session's values are \(total) bytes")
    }
}
