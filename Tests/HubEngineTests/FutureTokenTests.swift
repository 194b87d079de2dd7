@testable import HubEngine
import HubSync
import Testing

/// Tokens dated ahead of the engine's clock: up to ``SessionToken/maximumClockSkewSeconds``
/// (5 minutes, the drift allowed between replicas) they are accepted; beyond it they are
/// refused as `future` and counted, else a token dated years ahead would never expire. The
/// engine's wall clock is injected.
@Suite("Tokens dated in the future")
struct FutureTokenTests {
    static func engine(clock: Locked<Int64>) throws -> (ViewEngine, SessionKeys) {
        var configuration = EngineFixture.configuration
        configuration.tokenMaxAge = .seconds(3600)
        configuration.wallClock = { clock.withLock { $0 } }
        return (try EngineFixture.engine([ContentOperationMock.adding("a")], configuration: configuration), configuration.sessionKeys)
    }

    @Test("issued 6 minutes ahead: refused as future and counted; 4 minutes (or exactly 5) ahead: accepted")
    func sixMinutesAheadIsRefused() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let (engine, keys) = try Self.engine(clock: clock)
        let now = clock.withLock { $0 }
        let sixAhead = SessionToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, issuedAt: now + 360, keys: keys)
        guard case .failure(.future) = engine.verify(sixAhead.encoded) else { throw TestFailure("6 minutes ahead verified") }
        #expect(engine.counters.rejected(.future) == 1)
        #expect(engine.presentedToken(sixAhead.encoded).rejection == .future)
        #expect(engine.counters.rejected(.future) == 2)
        #expect(engine.counters.rejected(.expired) == 0 && engine.counters.rejected(.signature) == 0)

        let fourAhead = SessionToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, issuedAt: now + 240, keys: keys)
        #expect(try engine.verify(fourAhead.encoded).get() == fourAhead)
        let fiveAhead = SessionToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, issuedAt: now + 300, keys: keys)
        #expect(try engine.verify(fiveAhead.encoded).get() == fiveAhead, "the bound itself is accepted")
        let justPast = SessionToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, issuedAt: now + 301, keys: keys)
        guard case .failure(.future) = engine.verify(justPast.encoded) else { throw TestFailure("5 minutes and 1 second ahead verified") }

        // The way around: once the clock has caught up within 5 minutes, the same token is
        // accepted, and it expires its maximum age after the time it names, as any token.
        clock.withLock { $0 += 60 }
        #expect(try engine.verify(sixAhead.encoded).get() == sixAhead)
        clock.withLock { $0 = now + 360 + 3599 }
        #expect(try engine.verify(sixAhead.encoded).get() == sixAhead)
        clock.withLock { $0 += 1 }
        guard case .failure(.expired) = engine.verify(sixAhead.encoded) else { throw TestFailure("never expired") }
    }

    @Test("SessionToken.verify: a token dated 10 years ahead is refused as future, not accepted for 10 years and 7 days")
    func farFuture() throws {
        let keys = SessionKeys.ephemeral()
        let now: Int64 = 1_800_000_000
        let token = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:x", issuedAt: now + 10 * 365 * 86_400, keys: keys)
        guard case .failure(.future) = SessionToken.verify(token.encoded, keys: keys, now: now, maxAge: 7 * 86_400) else {
            throw TestFailure("a token 10 years ahead verified")
        }
        // A forged one is a signature failure first: the date of a token nobody signed tells nothing.
        guard case .failure(.signature) = SessionToken.verify(token.encoded, keys: .ephemeral(), now: now, maxAge: 7 * 86_400) else {
            throw TestFailure("another key's token was judged by its date")
        }
    }

    @Test("a held session is answered only while its token is within the skew of the clock, compared byte for byte")
    func heldPath() async throws {
        let clock = Locked<Int64>(1_800_000_000)
        let (engine, _) = try Self.engine(clock: clock)
        let (session, _) = try await engine.openSession(for: EngineFixture.request())
        let text = session.token.encoded
        #expect(engine.presentedToken(text).heldSession === session)
        // One byte changed, first after the identifier or last: not the held session's text.
        var bytes = Array(text.utf8)
        for index in [23, bytes.count - 1] {
            let original = bytes[index]
            bytes[index] = original == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let changed = engine.presentedToken(String(decoding: bytes, as: UTF8.self))
            #expect(changed.heldSession == nil, "position \(index)")
            #expect(changed.token == nil)
            bytes[index] = original
        }
        // The clock stepped back by more than 5 minutes: the token is dated ahead of it.
        clock.withLock { $0 -= 301 }
        let ahead = engine.presentedToken(text)
        #expect(ahead.heldSession == nil && ahead.rejection == .future)
        clock.withLock { $0 += 1 }
        #expect(engine.presentedToken(text).heldSession === session)
    }
}
