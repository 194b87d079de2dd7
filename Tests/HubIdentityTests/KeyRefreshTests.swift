import Foundation
import HubIdentity
import HubTestSupport
import HubUpstream
import Testing

/// Keys change without a restart: an unknown kid refreshes (at most once per 30 s, one fetch for
/// every waiting verification), a failing endpoint keeps the last good keys.
@Suite struct KeyRefreshTests {
    @Test func aKeyAddedLaterIsAcceptedThroughAnUnknownKidRefreshAtMostEvery30Seconds() async throws {
        let first = try await TestKey.rsa(kid: "first")
        let second = try await TestKey.p256(kid: "second")
        let third = try await TestKey.ed25519(kid: "third")
        let clock = ManualClock()
        try await withVerifier(keys: [first], clock: clock) { verifier, server async throws in
            #expect(server.fetches("/jwks") == 1)
            server.serve("/jwks", jwks([first, second]))
            // Within 30 s of the first load: no fetch, the kid stays unknown.
            clock.advance(seconds: 29)
            #expect(try await verifier.verify(Substring(second.token(claims(issuer: testIssuer, at: clock)))).failure == .unknownKey)
            #expect(server.fetches("/jwks") == 1)
            clock.advance(seconds: 1)
            #expect(try await verifier.verify(Substring(second.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
            #expect(server.fetches("/jwks") == 2)
            #expect(verifier.status().first?.keys == 2)
            // Another unknown kid within 30 s of that fetch: no second fetch.
            server.serve("/jwks", jwks([first, second, third]))
            clock.advance(seconds: 20)
            #expect(try await verifier.verify(Substring(third.token(claims(issuer: testIssuer, at: clock)))).failure == .unknownKey)
            #expect(server.fetches("/jwks") == 2)
            clock.advance(seconds: 10)
            #expect(try await verifier.verify(Substring(third.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
            #expect(server.fetches("/jwks") == 3)
            // The known keys never fetch.
            #expect(try await verifier.verify(Substring(first.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
            #expect(server.fetches("/jwks") == 3)
        }
    }

    @Test func concurrentVerificationsWaitingForTheSameKeyShareOneFetch() async throws {
        let first = try await TestKey.rsa(kid: "first")
        let rotated = try await TestKey.ed25519(kid: "rotated")
        let clock = ManualClock()
        try await withVerifier(keys: [first], clock: clock) { verifier, server async throws in
            server.serve("/jwks", jwks([first, rotated]))
            let gate = ThreadGate()
            server.hold(gate)
            clock.advance(seconds: 60)
            let token = try rotated.token(claims(issuer: testIssuer, at: clock))
            async let results = withTaskGroup(of: VerificationFailure?.self) { group in
                for _ in 0..<12 { group.addTask { await verifier.verify(Substring(token)).failure } }
                return await group.reduce(into: [VerificationFailure?]()) { $0.append($1) }
            }
            #expect(await eventually { server.fetches("/jwks") == 2 })
            // Give the other verifications time to arrive while the fetch is held (they must
            // wait for it; arriving later they would pass anyway, so this only adds strength).
            try await Task.sleep(for: .milliseconds(300))
            gate.open()
            // Each verification waited for the one fetch instead of answering unknown_key.
            #expect(await results == Array(repeating: nil, count: 12))
            #expect(server.fetches("/jwks") == 2)
        }
    }

    @Test func aFailingEndpointKeepsTheKnownKeysAndReportsTheError() async throws {
        let known = try await TestKey.rsa(kid: "known")
        let unknown = try await TestKey.rsa(kid: "unknown")
        let clock = ManualClock()
        let events = EventRecorder()
        try await withVerifier(keys: [known], clock: clock, events: events) { verifier, server async throws in
            let loaded = try #require(verifier.status().first)
            #expect(loaded.keys == 1 && loaded.error == nil && loaded.refreshedAt == clock.date)
            #expect(events.refreshes == [true])
            server.serve("/jwks", Array(#"{"error":"down"}"#.utf8), status: 500)
            clock.advance(seconds: 31)
            #expect(try await verifier.verify(Substring(unknown.token(claims(issuer: testIssuer, at: clock)))).failure == .unknownKey)
            #expect(server.fetches("/jwks") == 2)
            let failed = try #require(verifier.status().first)
            #expect(failed.keys == 1)
            #expect(failed.refreshedAt == loaded.refreshedAt)
            #expect(failed.error?.contains("HTTP 500") == true)
            #expect(events.refreshes == [true, false])
            #expect(events.logLines.count == 1)
            #expect(try await verifier.verify(Substring(known.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
            // Not JSON, then an empty key set: failures too, the keys still kept.
            for body in ["<html>", #"{"keys":[]}"#, #"{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"s"}]}"#] {
                server.serve("/jwks", Array(body.utf8))
                await verifier.refreshNow()
                #expect(verifier.status().first?.keys == 1)
                #expect(verifier.status().first?.error != nil, "\(body)")
            }
            #expect(events.logLines.count == 4)
            // Recovery clears the error.
            server.serve("/jwks", jwks([known, unknown]))
            clock.advance(seconds: 5)
            await verifier.refreshNow()
            let recovered = try #require(verifier.status().first)
            #expect(recovered.error == nil && recovered.keys == 2 && recovered.refreshedAt == clock.date)
            #expect(events.refreshes.last == true)
        }
    }

    @Test func refreshesAskTheProviderNotACache() async throws {
        let key = try await TestKey.rsa(kid: "k")
        try await withVerifier(keys: [key]) { verifier, server async throws in
            await verifier.refreshNow()
            let requests = server.upstream.log.hits(path: "/jwks")
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.method == "GET" && $0.header("cache-control") == "no-cache" })
        }
    }

    @Test func aJWKSFileIsReadAgainAtEachRefresh() async throws {
        let first = try await TestKey.rsa(kid: "first")
        let second = try await TestKey.p256(kid: "second")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("jwks.json")
        try Data(jwks([first])).write(to: file)
        let clock = ManualClock()
        let client = identityClient()
        defer { client.shutdown() }
        let verifier = TokenVerifier(
            providers: [JWTProviderSettings(issuer: testIssuer, audiences: ["hub"], keys: .file(file.path), refreshSeconds: 86_400)],
            upstream: client, clock: clock.dateFunction)
        await verifier.start()
        defer { verifier.shutdown() }
        #expect(try await verifier.verify(Substring(first.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
        #expect(try await verifier.verify(Substring(second.token(claims(issuer: testIssuer, at: clock)))).failure == .unknownKey)
        try Data(jwks([second])).write(to: file)
        await verifier.refreshNow()
        #expect(try await verifier.verify(Substring(second.token(claims(issuer: testIssuer, at: clock)))).failure == nil)
        #expect(try await verifier.verify(Substring(first.token(claims(issuer: testIssuer, at: clock)))).failure == .unknownKey)
        try FileManager.default.removeItem(at: file)
        await verifier.refreshNow()
        #expect(verifier.status().first?.error?.contains("cannot be read") == true)
        #expect(verifier.status().first?.keys == 1)
    }
}
