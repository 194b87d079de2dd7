import Foundation
import HubUpstream
import HubUpstreamTestSupport
import Testing

/// Freshness over a real upstream: `Expires` (with and without `Date`) when there is no
/// `max-age`, invalid `Expires`, and `Age`/`Date` reducing what is left of the lifetime.
@Suite struct CacheFreshnessTests {
    static let body = Array(#"{"items":[1,2,3]}"#.utf8)

    /// `now + offset` seconds as an IMF-fixdate, by Foundation (independent of the parser under test).
    static func httpDate(_ offset: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSinceNow: offset))
    }

    /// Sends the same GET twice to an upstream answering 200 with `headers`; returns both answers.
    static func twice(_ headers: [(String, String)]) async throws -> (UpstreamResponse, UpstreamResponse, requests: Int) {
        try await withUpstream(handler: { _ in .respond(status: 200, headers: headers, body: Self.body) }) { upstream, client in
            let first = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            let second = try await client.send(UpstreamRequest(url: upstream.url("/r")))
            return (first, second, upstream.requestCount)
        }
    }

    /// Seconds from now until `response` stops being fresh.
    static func remaining(_ response: UpstreamResponse) throws -> Double {
        let freshUntil = try #require(response.freshUntil)
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: freshUntil).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    @Test func futureExpiresWithoutDateIsFresh() async throws {
        let (first, second, requests) = try await Self.twice([("Expires", Self.httpDate(120))])
        #expect(first.cacheStatus == .miss)
        #expect(second.cacheStatus == .hit)
        #expect(requests == 1)
        let remaining = try Self.remaining(first)
        #expect(remaining > 115 && remaining <= 121)
    }

    @Test func expiresCountsFromDate() async throws {
        // Date one minute ago and Expires two minutes after it: a 120 s lifetime, 60 s of it gone.
        let (first, second, requests) = try await Self.twice([("Date", Self.httpDate(-60)), ("Expires", Self.httpDate(60))])
        #expect(second.cacheStatus == .hit)
        #expect(requests == 1)
        let remaining = try Self.remaining(first)
        #expect(remaining > 55 && remaining <= 61)
    }

    @Test(arguments: ["0", "-1", "yesterday", "Thu, 01 Jan 1970 00:00:00 GMT"])
    func invalidOrPastExpiresIsNotFresh(expires: String) async throws {
        let (first, second, requests) = try await Self.twice([("Expires", expires)])
        #expect(first.freshUntil == nil)
        #expect(second.cacheStatus == .miss)
        #expect(requests == 2)
    }

    @Test func pastExpiresWithValidatorIsStoredStaleAndRevalidated() async throws {
        try await withUpstream(handler: { request in
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
        try await withUpstream(handler: { request in
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
        let (_, second, requests) = try await Self.twice([("Cache-Control", "max-age=60"), ("Expires", "0")])
        #expect(second.cacheStatus == .hit)
        #expect(requests == 1)
        let (_, stale, staleRequests) = try await Self.twice([("Cache-Control", "max-age=0"), ("Expires", Self.httpDate(3600))])
        #expect(stale.cacheStatus == .miss)
        #expect(staleRequests == 2)
    }

    @Test func ageReducesRemainingFreshness() async throws {
        let (first, second, _) = try await Self.twice([("Cache-Control", "max-age=60"), ("Age", "50")])
        #expect(second.cacheStatus == .hit)
        let remaining = try Self.remaining(first)
        #expect(remaining > 5 && remaining <= 10.5)

        let (used, usedSecond, requests) = try await Self.twice([("Cache-Control", "max-age=60"), ("Age", "60")])
        #expect(used.freshUntil == nil)
        #expect(usedSecond.cacheStatus == .miss)
        #expect(requests == 2)
    }

    @Test func ageReducesExpiresFreshness() async throws {
        let (first, _, _) = try await Self.twice([("Date", Self.httpDate(0)), ("Expires", Self.httpDate(100)), ("Age", "70")])
        let remaining = try Self.remaining(first)
        #expect(remaining > 25 && remaining <= 31)
    }

    @Test func oldDateIsApparentAge() async throws {
        // Nothing says how old it is but Date: 40 s of a 60 s max-age are gone.
        let (first, _, _) = try await Self.twice([("Cache-Control", "max-age=60"), ("Date", Self.httpDate(-40))])
        let remaining = try Self.remaining(first)
        #expect(remaining > 15 && remaining <= 21)
    }
}
