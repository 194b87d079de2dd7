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
        #expect(try await engine.revoke(token).get() == true, "it was held")
        #expect(engine.session(session.id) == nil)
        guard case .failure(.revoked) = engine.verify(token) else { throw TestFailure("not refused as revoked") }
        #expect(engine.revokedTokens == 1)
        // A forged token is refused and recorded nowhere.
        let forged = SessionToken(id: SessionIdentifier.make(), viewURI: EngineFixture.uri, issuedAt: clock.withLock { $0 }, keys: .ephemeral())
        guard case .failure(.signature) = try await engine.revoke(forged.encoded) else { throw TestFailure("a forged token was revoked") }
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

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
