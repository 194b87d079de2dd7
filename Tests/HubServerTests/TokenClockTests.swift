import Foundation
import HubEngine
import HubServer
import HubTestSupport
import Testing

/// Over real sockets: a token dated more than 5 minutes ahead of the server's clock is answered
/// as any invalid token (404 `session_not_found`, nothing rebuilt) and counted with
/// `reason="future"`; 4 minutes ahead (replicas' clocks drift) it rebuilds its session.
/// (The exact bound, against an injected clock: HubEngineTests' FutureTokenTests.)
@Suite("Session tokens dated in the future")
struct TokenClockTests {
    @Test("a token issued now + 6 min is 404 session_not_found and counted as future; now + 4 min is 200")
    func futureTokens() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        let keys = try SessionKeys(texts: [TrustedSessionTests.keyA])
        try await withHub(
            TrustedSessionTests.config(upstream: upstream.base), environment: TrustedSessionTests.environment(keys: TrustedSessionTests.keyA),
            transport: .socket
        ) { client, _ in
            let now = EngineDefaults.systemWallClock()
            let ahead = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:remote", issuedAt: now + 6 * 60, keys: keys)
            try expectProblem(try await client.session(ahead.encoded), 404, "session_not_found")
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="future"}"#) == 1)
            #expect(upstream.log.hits(path: "/item").isEmpty, "nothing rebuilt: no upstream reached")
            let near = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:remote", issuedAt: now + 4 * 60, keys: keys)
            let rebuilt = try await client.session(near.encoded)
            #expect(rebuilt.status == 200, "\(rebuilt)")
            #expect(rebuilt.header("Hub-Session") == near.encoded)
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="future"}"#) == 1)
        }
    }
}
