@testable import HubEngine
import HubModel
import HubSync
import Testing

/// The engine follows what operations read from the state store: a change re-runs exactly the
/// sessions and operations that read the key; values are bounded, shaped and may be served
/// without when the store is down.
@Suite("State: reads followed, writes bounded")
struct StateFollowingTests {
    /// Shows the `title` value of `scope` (or "none"); counts its runs.
    struct TitleFromState: ContentOperation {
        let scope: StateScope
        let runs: Locked<Int>
        var name: String { "titleFromState" }

        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            runs.withLock { $0 += 1 }
            let stored = try await context.state.read("title", in: scope)
            builder.title = stored?.value.stringValue ?? "none"
        }
    }

    static func counting(_ runs: Locked<Int>) -> BlockContentOperation {
        BlockContentOperation(name: "counting") { builder, _ in
            runs.withLock { $0 += 1 }
            builder.body["row"].title = "row"
        }
    }

    @Test("a write from elsewhere re-runs every session that read the key, from the operation that read it, and pushes the view")
    func changesFollowed() async throws {
        let store = MemoryStateStore()
        var configuration = EngineFixture.configuration
        configuration.stateStore = store
        let first = Locked(0), reads = Locked(0)
        let engine = try EngineFixture.engine(
            [Self.counting(first), TitleFromState(scope: .subject("list"), runs: reads)], configuration: configuration)
        let (a, stateA) = try await engine.openSession(for: EngineFixture.request())
        let (b, _) = try await engine.openSession(for: EngineFixture.request())
        #expect(stateA.title == "none")
        #expect(engine.sessionsFollowingState == 2)
        let updates = await b.updates()
        var iterator = updates.makeAsyncIterator()
        _ = await iterator.next()  // the current view

        let key = try StateKey("title", in: .subject("list"), sessionID: "any")
        _ = try await store.write(key, bytes: JSONValue.string("shared").jsonBytes, shape: 1, expected: 0, expiresAt: nil, now: 0)
        #expect(await iterator.next()?.title == "shared", "B's listener got the new view")
        #expect(await a.settled().title == "shared")
        #expect(first.withLock { $0 } == 2, "the operation before the reader did not run again")
        #expect(engine.counters.stateReruns == 2)
        // A key nobody read changes nothing.
        _ = try await store.write(try StateKey("other", in: .subject("list"), sessionID: "any"), bytes: Array("1".utf8), shape: 1, expected: 0, expiresAt: nil, now: 0)
        #expect(engine.counters.stateReruns == 2)
    }

    @Test("an action's write re-runs its own session once (the store's echo of the same version is not a second run)")
    func actionWriteRerunsOnce() async throws {
        let reads = Locked(0)
        let factory = ClosureActionFactory([
            "set": { context in
                try await context.state.write("title", .string("set"), expecting: 0)
                return .performed
            },
        ])
        let (engine, session, _) = try await EngineFixture.session(
            [TitleFromState(scope: .session, runs: reads)], actions: [("state", factory)])
        let outcome = try await session.perform(ActionInvocation(action: ComponentIdentifier(namespace: "state", name: "set"), componentIdentifier: nil))
        #expect(outcome.performed)
        #expect(outcome.state.title == "set", "the action's answer carries the re-run view")
        _ = await session.settled()
        #expect(reads.withLock { $0 } == 2, "one first run, one re-run")
        #expect(engine.counters.stateReruns == 0)
    }

    @Test("an action's write of a key the view read stores the session's own key: one copy of its text, not one per use")
    func writtenKeyIsTheFollowedOne() async throws {
        let store = MemoryStateStore()
        var configuration = EngineFixture.configuration
        configuration.stateStore = store
        let factory = ClosureActionFactory([
            "set": { context in
                try await context.state.write("title", .string("set"), expecting: 0)
                return .performed
            },
        ])
        let (_, session, _) = try await EngineFixture.session(
            [TitleFromState(scope: .session, runs: Locked(0))], actions: [("state", factory)], configuration: configuration)
        let outcome = try await session.perform(ActionInvocation(action: ComponentIdentifier(namespace: "state", name: "set"), componentIdentifier: nil))
        #expect(outcome.state.title == "set")
        /// Where a key's text lives (a session key is longer than a small string: it has storage).
        func storage(_ key: StateKey) -> UnsafeRawPointer? {
            key.rawValue.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        let followed = try #require(await session.stateReads.first?.key)
        let stored = try await store.records(withPrefix: "session/", now: 0).map(\.0)
        let title = try #require(stored.first { $0 == followed })
        #expect(storage(title) != nil && storage(title) == storage(followed), "the store keeps the session's key")
        let access = await session.stateAccess(operationIndex: 0, log: nil)
        #expect(try access.key("title") == followed && storage(try access.key("title")) == storage(followed))
        #expect(throws: StateError.self) { try access.key("") }
    }

    @Test("a key is looked for among a session's first 32 reads: past them an equal key is made afresh")
    func followedKeysLookedAtAreBounded() throws {
        func storage(_ key: StateKey) -> UnsafeRawPointer? {
            key.rawValue.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        let sessionID = "a-session-id-longer-than-a-small-string"
        let reads = try (0..<40).map { index in
            StateRead(operation: 0, key: try StateKey("key-\(index)", in: .session, sessionID: sessionID), version: 1, seen: 1)
        }
        let access = StateAccess(
            store: MemoryStateStore(), settings: StateSettings(), sessionID: sessionID, log: nil, operationIndex: 0,
            counters: EngineCounters(), wallClock: { 0 }, followed: reads)
        #expect(StateAccess.followedKeysLookedAt == 32)
        let first = try access.key("key-0"), last = try access.key("key-31"), past = try access.key("key-35")
        #expect(first == reads[0].key && storage(first) == storage(reads[0].key))
        #expect(last == reads[31].key && storage(last) == storage(reads[31].key))
        #expect(past == reads[35].key && storage(past) != storage(reads[35].key))
    }

    @Test("shapes: an older value is migrated on read, or dropped, and counted")
    func shapes() async throws {
        let store = MemoryStateStore()
        let counters = EngineCounters()
        let access = StateAccess(
            store: store, settings: StateSettings(), sessionID: "s", log: nil, operationIndex: 0, counters: counters,
            wallClock: { 0 })
        try await access.write("v", .string("old"), expecting: 0, shape: .initial)
        let migrating = StateShape(version: 2) { from, value in from == 1 ? .string("migrated " + (value.stringValue ?? "")) : nil }
        #expect(try await access.read("v", shape: migrating)?.value == .string("migrated old"))
        #expect(try await access.read("v", shape: StateShape(version: 2)) == nil, "no migration: dropped")
        #expect(counters.stateShapes.migrated == 1 && counters.stateShapes.dropped == 1)
        // update() over a dropped value writes the new shape in its place.
        let updated = try await access.update("v", shape: StateShape(version: 2)) { value in
            value = .string(value == nil ? "fresh" : "kept")
            return true
        }
        #expect(updated?.value == .string("fresh") && updated?.version == 2)
        #expect(try await store.read(try access.key("v"), now: 0)?.shape == 2)
    }

    @Test("a value over maxValueBytes is refused as tooLarge and the stored one stays")
    func sizeCap() async throws {
        let store = MemoryStateStore()
        let access = StateAccess(store: store, sessionID: "s", settings: StateSettings(maxValueBytes: 16))
        try await access.write("v", .string("small"), expecting: 0)
        await #expect(throws: StateError.self) {
            try await access.write("v", .string(String(repeating: "x", count: 40)), expecting: 1)
        }
        #expect(try await access.read("v")?.value == .string("small"))
        #expect(try await access.read("v")?.version == 1)
    }

    @Test("an unavailable store fails the read, or answers no value under serve-without-state (counted)")
    func readFailurePolicy() async throws {
        let store = MemoryStateStore()
        store.close()
        let counters = EngineCounters()
        func access(_ policy: StateReadFailurePolicy) -> StateAccess {
            StateAccess(
                store: store, settings: StateSettings(onReadError: policy), sessionID: "s", log: nil, operationIndex: 0,
                counters: counters, wallClock: { 0 })
        }
        await #expect(throws: StateError.self) { try await access(.fail).read("v") }
        #expect(try await access(.serveWithoutState).read("v") == nil)
        #expect(counters.stateReadFallbacks == 1)
        await #expect(throws: StateError.self) {
            try await access(.serveWithoutState).write("v", .int(1), expecting: 0)
        }
    }

    @Test("keys: empty names and subjects, control characters and overlong keys are refused")
    func keyValidation() throws {
        #expect(throws: StateError.self) { try StateKey("", in: .session, sessionID: "s") }
        #expect(throws: StateError.self) { try StateKey("a", in: .subject(""), sessionID: "s") }
        #expect(throws: StateError.self) { try StateKey("a\nb", in: .session, sessionID: "s") }
        #expect(throws: StateError.self) { try StateKey(String(repeating: "k", count: 600), in: .session, sessionID: "s") }
        #expect(try StateKey("cart", in: .subject("user:42"), sessionID: "s").rawValue == "subject/user:42/cart")
    }
}

/// Client actions of one session run one at a time, in arrival order.
@Suite("Actions: one at a time per session")
struct ActionTurnTests {
    @Test("a second action waits until the first one's perform has finished, then runs")
    func actionsTakeTurns() async throws {
        let log = Locked<[String]>([])
        let gate = Locked<CheckedContinuation<Void, Never>?>(nil)
        let factory = ClosureActionFactory([
            "slow": { _ in
                log.withLock { $0.append("slow start") }
                await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
                log.withLock { $0.append("slow end") }
                return .performed
            },
            "fast": { _ in
                log.withLock { $0.append("fast") }
                return .performed
            },
        ])
        let (_, session, _) = try await EngineFixture.session(
            [BlockContentOperation { builder, _ in builder.body["a"].title = "a" }], actions: [("t", factory)])
        let slow = Task { try await session.perform(ActionInvocation(action: ComponentIdentifier(namespace: "t", name: "slow"), componentIdentifier: nil)) }
        while gate.withLock({ $0 }) == nil { await Task.yield() }
        let fast = Task { try await session.perform(ActionInvocation(action: ComponentIdentifier(namespace: "t", name: "fast"), componentIdentifier: nil)) }
        while await session.waitingActions < 1 { await Task.yield() }
        #expect(log.withLock { $0 } == ["slow start"], "the second action waits for its turn")
        gate.withLock { $0 }?.resume()
        #expect(try await slow.value.performed)
        #expect(try await fast.value.performed)
        #expect(log.withLock { $0 } == ["slow start", "slow end", "fast"])
    }
}

extension ViewSession {
    /// Client actions waiting for their turn (white-box test hook).
    var waitingActions: Int { actionTurnWaiters.count }
}
