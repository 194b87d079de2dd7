import Foundation
import HubIdentity
import HubTestSupport
import HubUpstream

/// The issuer of the single-provider tests.
let testIssuer = "https://id.example.test"

/// Runs `body` with a started verifier for one provider (issuer ``testIssuer``, audience `hub`)
/// whose JWKS, served at `/jwks` by a real loopback upstream, lists `keys` (and `extra` raw
/// members); shuts everything down after.
func withVerifier(
    keys: [TestKey], extra: [[String: String]] = [], algorithms: [String] = JWTProviderSettings.defaultAlgorithms,
    leeway: Int = 60, clock: ManualClock = ManualClock(), events: EventRecorder = EventRecorder(),
    _ body: (TokenVerifier, KeyServer) async throws -> Void
) async throws {
    let server = try KeyServer()
    server.serve("/jwks", jwks(keys, extra: extra))
    let client = identityClient()
    defer { client.shutdown() }
    let settings = JWTProviderSettings(
        issuer: testIssuer, audiences: ["hub"], keys: .url(server.url("/jwks")), algorithms: algorithms,
        leewaySeconds: leeway, refreshSeconds: 86_400)
    let verifier = TokenVerifier(providers: [settings], upstream: client, events: events.events, clock: clock.dateFunction)
    await verifier.start()
    defer { verifier.shutdown() }
    try await body(verifier, server)
}

extension Result where Failure == VerificationFailure {
    /// The failure, or nil for a success.
    var failure: VerificationFailure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    /// The identity, or nil for a failure.
    var identity: Success? {
        if case .success(let identity) = self { return identity }
        return nil
    }
}
