import Foundation
import HubTestSupport
import HubUpstream
import Testing

/// Freshness over a real upstream: `Expires` (with and without `Date`) when there is no
/// `max-age`, invalid `Expires`, and `Age`/`Date` reducing what is left of the lifetime.
///
/// The client runs on a stopped clock (``UpstreamClock``): the wall clock reads ``wallNow`` and
/// the monotonic one a fixed instant, so every lifetime is exact however slow the machine is.
@Suite struct CacheFreshnessTests {
    static let body = Array(#"{"items":[1,2,3]}"#.utf8)
    /// The wall-clock time the stopped clock reads: 2027-01-15T08:00:00Z.
    static let wallNow = 1_800_000_000

    /// `wallNow + offset` seconds as an IMF-fixdate, by Foundation (independent of the parser under test).
    static func httpDate(_ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(wallNow + offset)))
    }

    /// A configuration whose clock stands still at `instant` and ``wallNow``.
    static func stoppedClock(at instant: ContinuousClock.Instant) -> UpstreamConfiguration {
        var configuration = UpstreamConfiguration()
        configuration.clock = ManualClock(wallSeconds: Double(wallNow), start: instant).upstreamClock
        return configuration
    }

    /// Sends the same GET twice to an upstream answering 200 with `headers` on a stopped clock;
    /// returns both answers, the request count and the seconds the first answer stays fresh.
    static func twice(_ headers: [(String, String)]) async throws
        -> (UpstreamResponse, UpstreamResponse, requests: Int, remaining: Int?)
    {
        let instant = ContinuousClock.now
        return try await withUpstream(configuration: stoppedClock(at: instant), handler: { _ in
            .respond(status: 200, headers: headers, body: Self.body)
        }) { upstream, client in
            let first = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            let second = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            let remaining = first.freshUntil.map { Int(instant.duration(to: $0).components.seconds) }
            return (first, second, upstream.requestCount, remaining)
        }
    }

    @Test func futureExpiresWithoutDateIsFresh() async throws {
        let (first, second, requests, remaining) = try await Self.twice([("Expires", Self.httpDate(120))])
        #expect(first.cacheStatus == .miss)
        #expect(second.cacheStatus == .hit)
        #expect(requests == 1)
        #expect(remaining == 120)
    }

    @Test func expiresCountsFromDate() async throws {
        // Date one minute ago and Expires two minutes after it: a 120 s lifetime, 60 s of it gone.
        let (_, second, requests, remaining) = try await Self.twice([("Date", Self.httpDate(-60)), ("Expires", Self.httpDate(60))])
        #expect(second.cacheStatus == .hit)
        #expect(requests == 1)
        #expect(remaining == 60)
    }

    @Test(arguments: ["0", "-1", "yesterday", "Thu, 01 Jan 1970 00:00:00 GMT"])
    func invalidOrPastExpiresIsNotFresh(expires: String) async throws {
        let (first, second, requests, _) = try await Self.twice([("Expires", expires)])
        #expect(first.freshUntil == nil)
        #expect(second.cacheStatus == .miss)
        #expect(requests == 2)
    }

    @Test func pastExpiresWithValidatorIsStoredStaleAndRevalidated() async throws {
        try await withUpstream(configuration: Self.stoppedClock(at: .now), handler: { request in
            if request.header("if-none-match") == "\"e\"" { return .respond(status: 304, headers: [("ETag", "\"e\"")]) }
            return .respond(status: 200, headers: [("Expires", "0"), ("ETag", "\"e\"")], body: Self.body)
        }) { upstream, client in
            _ = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            let second = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            #expect(second.cacheStatus == .revalidated)
            #expect(second.body == Self.body)
            #expect(upstream.requestCount == 2)
        }
    }

    @Test func expiresOnA304RestatesTheLifetime() async throws {
        try await withUpstream(configuration: Self.stoppedClock(at: .now), handler: { request in
            if request.header("if-none-match") == "\"e\"" {
                return .respond(status: 304, headers: [("ETag", "\"e\""), ("Expires", Self.httpDate(60))])
            }
            return .respond(status: 200, headers: [("Cache-Control", "max-age=0"), ("ETag", "\"e\"")], body: Self.body)
        }) { upstream, client in
            _ = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            let revalidated = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            #expect(revalidated.cacheStatus == .revalidated)
            #expect(revalidated.isFresh)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/r"))).cacheStatus == .hit)
            #expect(upstream.requestCount == 2)
        }
    }

    @Test func maxAgeOverridesExpires() async throws {
        let (_, second, requests, _) = try await Self.twice([("Cache-Control", "max-age=60"), ("Expires", "0")])
        #expect(second.cacheStatus == .hit)
        #expect(requests == 1)
        let (_, stale, staleRequests, _) = try await Self.twice([("Cache-Control", "max-age=0"), ("Expires", Self.httpDate(3600))])
        #expect(stale.cacheStatus == .miss)
        #expect(staleRequests == 2)
    }

    @Test func ageReducesRemainingFreshness() async throws {
        let (_, second, _, remaining) = try await Self.twice([("Cache-Control", "max-age=60"), ("Age", "50")])
        #expect(second.cacheStatus == .hit)
        #expect(remaining == 10)

        let (used, usedSecond, requests, _) = try await Self.twice([("Cache-Control", "max-age=60"), ("Age", "60")])
        #expect(used.freshUntil == nil)
        #expect(usedSecond.cacheStatus == .miss)
        #expect(requests == 2)
    }

    @Test func ageReducesExpiresFreshness() async throws {
        let (_, _, _, remaining) = try await Self.twice([("Date", Self.httpDate(0)), ("Expires", Self.httpDate(100)), ("Age", "70")])
        #expect(remaining == 30)
    }

    @Test func oldDateIsApparentAge() async throws {
        // Nothing says how old it is but Date: 40 s of a 60 s max-age are gone.
        let (_, _, _, remaining) = try await Self.twice([("Cache-Control", "max-age=60"), ("Date", Self.httpDate(-40))])
        #expect(remaining == 20)
    }
}
