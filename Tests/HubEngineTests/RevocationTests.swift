@testable import HubEngine
import HubModel
import HubSync
import Testing

/// Revocation: exact while a token could verify, forgotten once it would have expired; forged
/// tokens are never recorded. The engine's wall clock is injected.
@Suite("Token revocation")
struct RevocationTests {
    @Test("a revoked token is refused as revoked until its expiry, then as expired, and pruning forgets it")
    func revokedUntilExpiry() async throws {
        let clock = Locked<Int64>(1_800_000_000)
        var configuration = EngineFixture.configuration
        configuration.tokenMaxAge = .seconds(7 * 86_400)
        configuration.wallClock = { clock.withLock { $0 } }
        let engine = try EngineFixture.engine([ContentOperationMock.adding("a")], configuration: configuration)
        let (session, _) = try await engine.openSession(for: EngineFixture.request())
        let token = session.token.encoded
        #expect(try await engine.revoke(engine.presentedToken(token)).get() == true, "it was held")
        #expect(engine.session(session.id) == nil)
        guard case .failure(.revoked) = engine.verify(token) else { throw TestFailure("not refused as revoked") }
        #expect(engine.revokedTokens == 1)
        // A forged token is refused and recorded nowhere.
        let forged = SessionToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, issuedAt: clock.withLock { $0 }, keys: .ephemeral())
        guard case .failure(.signature) = try await engine.revoke(engine.presentedToken(forged.encoded)) else { throw TestFailure("a forged token was revoked") }
        #expect(engine.revokedTokens == 1)
        #expect(engine.pruneRevocations() == 0, "not expired yet")
        clock.withLock { $0 += 6 * 86_400 }
        guard case .failure(.revoked) = engine.verify(token) else { throw TestFailure("forgotten before its expiry") }
        clock.withLock { $0 += 2 * 86_400 }
        guard case .failure(.expired) = engine.verify(token) else { throw TestFailure("not expired") }
        #expect(engine.pruneRevocations() == 1)
        #expect(engine.revokedTokens == 0)
        #expect(engine.counters.rejected(.revoked) == 2 && engine.counters.rejected(.signature) == 1)
    }
}

extension RevocationTests {
    @Test("a token is read once per request: a held one is not verified, a refused one is counted once however many calls use it")
    func presentedOnce() async throws {
        let engine = try EngineFixture.engine([ContentOperationMock.adding("a")])
        let (session, _) = try await engine.openSession(for: EngineFixture.request())
        let held = engine.presentedToken(session.token.encoded)
        #expect(held.heldSession === session)
        #expect(held.token == session.token && held.rejection == nil)
        let forged = engine.presentedToken(
            SessionToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, issuedAt: 1_800_000_000, keys: .ephemeral()).encoded)
        #expect(forged.heldSession == nil && forged.token == nil && forged.rejection == .signature)
        guard case .notHeld(let notHeld) = engine.loadHeld(forged.text, request: { _ in EngineFixture.request() }),
            notHeld.rejection == .signature
        else { throw TestFailure("a forged token was held") }
        #expect(engine.counters.rejected(.signature) == 2, "read once by presentedToken, once by loadHeld")
        for _ in 0..<3 { guard case .failure(.signature) = try await engine.revoke(forged) else { throw TestFailure("a forged token was revoked") } }
        #expect(engine.counters.rejected(.signature) == 2, "revoke verifies nothing again")
        #expect(engine.revokedTokens == 0)
        #expect(try await engine.revoke(held).get() == true)
        #expect(engine.session(session.id) == nil && engine.revokedTokens == 1)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
