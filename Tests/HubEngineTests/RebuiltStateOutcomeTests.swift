@testable import HubEngine
import Testing

/// What a rebuild reports of its session's state (``RebuiltState``), from the keys its first
/// chain run touched: only the session's own keys, read from the store, count.
@Suite("Rebuilt state outcome")
struct RebuiltStateOutcomeTests {
    let id = "sessionAAAAAAAAAAAAAAA"

    func key(_ name: String, in scope: StateScope = .session, session: String? = nil) throws -> StateKey {
        try StateKey(name, in: scope, sessionID: session ?? id)
    }

    @Test("no read, a subject's keys, another session's keys: no outcome")
    func nothingOfItsOwn() throws {
        #expect(StateTouchLog().sessionStateOutcome(sessionID: id) == nil)
        let log = StateTouchLog()
        log.record(operation: 0, key: try key("motd", in: .subject("everyone")), version: 4)
        log.record(operation: 0, key: try key("cart", session: "sessionBBBBBBBBBBBBBBB"), version: 2)
        log.record(operation: 0, key: try key("cart", session: "sessionBBBBBBBBBBBBBBB"), version: 0)
        #expect(log.sessionStateOutcome(sessionID: id) == nil)
    }

    @Test("its own keys read: lost when none had a value, kept when one had")
    func ownKeys() throws {
        let lost = StateTouchLog()
        lost.record(operation: 0, key: try key("cart"), version: 0)
        lost.record(operation: 1, key: try key("draft"), version: 0)
        #expect(lost.sessionStateOutcome(sessionID: id) == .lost)
        let kept = StateTouchLog()
        kept.record(operation: 0, key: try key("cart"), version: 0)
        kept.record(operation: 1, key: try key("draft"), version: 3)
        #expect(kept.sessionStateOutcome(sessionID: id) == .kept)
    }

    @Test("a key the run wrote before reading it is the run's own; one read before the write counts")
    func ownWrites() throws {
        let writtenFirst = StateTouchLog()
        writtenFirst.record(operation: 0, key: try key("opened"), version: 1, wrote: true)
        writtenFirst.record(operation: 0, key: try key("opened"), version: 1)
        #expect(writtenFirst.sessionStateOutcome(sessionID: id) == nil)
        let readFirst = StateTouchLog()
        readFirst.record(operation: 0, key: try key("opened"), version: 0)
        readFirst.record(operation: 0, key: try key("opened"), version: 1, wrote: true)
        readFirst.record(operation: 0, key: try key("opened"), version: 1)
        #expect(readFirst.sessionStateOutcome(sessionID: id) == .lost)
    }

    @Test("a read the store could not answer (serve-without-state) tells nothing")
    func unansweredReads() throws {
        let outage = StateTouchLog()
        outage.record(operation: 0, key: try key("cart"), version: 0, unanswered: true)
        #expect(outage.sessionStateOutcome(sessionID: id) == nil)
        outage.record(operation: 1, key: try key("draft"), version: 2)
        #expect(outage.sessionStateOutcome(sessionID: id) == .kept)
    }
}
