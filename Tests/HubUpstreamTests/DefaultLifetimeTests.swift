import HubTestSupport
import HubUpstream
import Testing

/// ``UpstreamRequest/defaultMaxAge``: a `200` that states no lifetime of its own is fresh for
/// that long (and not asked for again meanwhile), while a response that states one, says
/// `no-cache`, is not a `200`, or is asked for without the default keeps the protocol's answer.
/// Over a real upstream, on a clock the test moves by hand.
@Suite struct DefaultLifetimeTests {
    static let body = Array(#"{"body":[{"id":"a"}]}"#.utf8)

    /// A client on `clock`.
    static func configuration(_ clock: ManualClock) -> UpstreamConfiguration {
        var configuration = UpstreamConfiguration()
        configuration.clock = clock.upstreamClock
        return configuration
    }

    /// A GET of `path` with `defaultMaxAge`.
    static func request(_ upstream: TestUpstream, _ path: String = "/r", defaultMaxAge: Int?) -> UpstreamRequest {
        var request = UpstreamRequest(url: upstream.url(path))
        request.defaultMaxAge = defaultMaxAge
        return request
    }

    @Test("a 200 without a lifetime or validator is fresh for the default, then fetched again")
    func noHeadersAtAll() async throws {
        let clock = ManualClock()
        try await withUpstream(configuration: Self.configuration(clock), handler: { _ in
            .respond(status: 200, headers: [("Content-Type", "application/json")], body: Self.body)
        }) { upstream, client in
            let first = try await client.send(Self.request(upstream, defaultMaxAge: 60))
            #expect(first.cacheStatus == .miss)
            #expect(first.freshUntil == clock.instant.advanced(by: .seconds(60)))
            clock.advance(.seconds(59))
            #expect(try await client.send(Self.request(upstream, defaultMaxAge: 60)).cacheStatus == .hit)
            #expect(upstream.requestCount == 1)
            clock.advance(.seconds(1))
            let later = try await client.send(Self.request(upstream, defaultMaxAge: 60))
            #expect(later.cacheStatus == .miss, "no validator: fetched whole again")
            #expect(later.freshUntil == clock.instant.advanced(by: .seconds(60)), "fresh for the default again")
            #expect(upstream.requestCount == 2)
        }
    }

    @Test("with a validator: fresh for the default, then revalidated, and a 304 that restates nothing keeps the default")
    func validatorRevalidatesAfterTheDefault() async throws {
        let clock = ManualClock()
        try await withUpstream(configuration: Self.configuration(clock), handler: { request in
            if request.header("if-none-match") == "\"v1\"" { return .respond(status: 304, headers: [("ETag", "\"v1\"")]) }
            return .respond(status: 200, headers: [("ETag", "\"v1\"")], body: Self.body)
        }) { upstream, client in
            _ = try await client.send(Self.request(upstream, defaultMaxAge: 30))
            #expect(try await client.send(Self.request(upstream, defaultMaxAge: 30)).cacheStatus == .hit)
            clock.advance(.seconds(30))
            let revalidated = try await client.send(Self.request(upstream, defaultMaxAge: 30))
            #expect(revalidated.cacheStatus == .revalidated && revalidated.body == Self.body)
            #expect(revalidated.freshUntil == clock.instant.advanced(by: .seconds(30)))
            #expect(try await client.send(Self.request(upstream, defaultMaxAge: 30)).cacheStatus == .hit)
            #expect(upstream.requestCount == 2)
        }
    }

    @Test("a request without the default never takes the entry one with it stored, and keeps revalidating")
    func withoutTheDefaultIsAnotherEntry() async throws {
        try await withUpstream(configuration: Self.configuration(ManualClock()), handler: { request in
            if request.header("if-none-match") == "\"v1\"" { return .respond(status: 304, headers: [("ETag", "\"v1\"")]) }
            return .respond(status: 200, headers: [("ETag", "\"v1\"")], body: Self.body)
        }) { upstream, client in
            _ = try await client.send(Self.request(upstream, defaultMaxAge: 60))
            let plain = try await client.send(Self.request(upstream, defaultMaxAge: nil))
            #expect(plain.cacheStatus == .miss && plain.freshUntil == nil, "its own entry, never fresh")
            #expect(try await client.send(Self.request(upstream, defaultMaxAge: nil)).cacheStatus == .revalidated)
            #expect(try await client.send(Self.request(upstream, defaultMaxAge: 60)).cacheStatus == .hit)
            #expect(try await client.send(Self.request(upstream, defaultMaxAge: 120)).cacheStatus == .miss, "another default, another entry")
            #expect(upstream.requestCount == 4)
        }
    }

    @Test(
        "a lifetime the response states wins, no-cache and no-store keep theirs, and only a 200 gets the default",
        arguments: [
            (200, [("Cache-Control", "max-age=0"), ("ETag", "\"e\"")], false),
            (200, [("Cache-Control", "max-age=5")], true),
            (200, [("Expires", "0")], false),
            (200, [("Cache-Control", "no-cache"), ("ETag", "\"e\"")], false),
            (200, [("Cache-Control", "no-store")], false),
            (200, [("Cache-Control", "private")], false),
            (404, [("ETag", "\"e\"")], false),
        ] as [(Int, [(String, String)], Bool)])
    func statedLifetimesWin(status: Int, headers: [(String, String)], freshForFive: Bool) async throws {
        let clock = ManualClock()
        try await withUpstream(configuration: Self.configuration(clock), handler: { _ in
            .respond(status: status, headers: headers, body: Self.body)
        }) { upstream, client in
            let first = try await client.send(Self.request(upstream, defaultMaxAge: 3600))
            #expect(first.status == status)
            #expect(first.freshUntil == (freshForFive ? clock.instant.advanced(by: .seconds(5)) : nil), "\(headers)")
            let second = try await client.send(Self.request(upstream, defaultMaxAge: 3600))
            #expect((second.cacheStatus == .hit) == freshForFive, "\(headers): \(second.cacheStatus)")
        }
    }

    @Test("the response's age counts against the default as against a stated lifetime")
    func ageCountsAgainstTheDefault() async throws {
        let clock = ManualClock()
        try await withUpstream(configuration: Self.configuration(clock), handler: { _ in
            .respond(status: 200, headers: [("Age", "45")], body: Self.body)
        }) { upstream, client in
            let first = try await client.send(Self.request(upstream, defaultMaxAge: 60))
            #expect(first.freshUntil == clock.instant.advanced(by: .seconds(15)))
            let old = try await client.send(Self.request(upstream, "/other", defaultMaxAge: 40))
            #expect(old.freshUntil == nil, "older than the default: stale at once, and without a validator not stored")
        }
    }
}
