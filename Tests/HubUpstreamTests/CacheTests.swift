import Foundation
import HubSync
import HubTestSupport
import HubUpstream
import Testing

/// The HTTP cache over a real upstream: max-age hits, ETag revalidation, no-store, bypass.
@Suite struct CacheTests {
    static let body = Array(#"{"items":[1,2,3]}"#.utf8)

    @Test func maxAgeServesFromCacheWithoutUpstreamTraffic() async throws {
        try await withUpstream(handler: { _ in
            .respond(status: 200, headers: [("Cache-Control", "public, max-age=60")], body: Self.body)
        }) { upstream, client in
            let first = try await client.send(UpstreamRequest(url: upstream.url("/fresh")))
            #expect(first.cacheStatus == .miss)
            #expect(first.isFresh)
            let second = try await client.send(UpstreamRequest(url: upstream.url("/fresh")))
            #expect(second.cacheStatus == .hit)
            #expect(second.body == Self.body)
            #expect(second.freshUntil == first.freshUntil)
            #expect(upstream.requestCount == 1)
            #expect(client.statistics.cacheHits == 1)
            // Different headers are a different request.
            let other = try await client.send(UpstreamRequest(url: upstream.url("/fresh"), headers: [("Authorization", "b")]))
            #expect(other.cacheStatus == .miss)
            // Bypass always goes upstream.
            let bypass = try await client.send(UpstreamRequest(url: upstream.url("/fresh"), cachePolicy: .bypass))
            #expect(bypass.cacheStatus == .bypass)
            #expect(upstream.requestCount == 3)
        }
    }

    @Test func etagRevalidationReusesTheCachedBodyOn304() async throws {
        let seenConditional = Locked<[String]>([])
        try await withUpstream(handler: { request in
            if let tag = request.header("if-none-match") {
                seenConditional.withLock { $0.append(tag) }
                if tag == "\"v1\"" { return .respond(status: 304, headers: [("ETag", "\"v1\"")]) }
            }
            return .respond(status: 200, headers: [("ETag", "\"v1\""), ("Cache-Control", "no-cache")], body: Self.body)
        }) { upstream, client in
            let first = try await client.send(UpstreamRequest(url: upstream.url("/etag")))
            #expect(first.cacheStatus == .miss)
            #expect(first.freshUntil == nil)
            let second = try await client.send(UpstreamRequest(url: upstream.url("/etag")))
            #expect(second.cacheStatus == .revalidated)
            #expect(second.status == 200)
            #expect(second.body == Self.body)
            #expect(seenConditional.withLock { $0 } == ["\"v1\""])
            #expect(upstream.requestCount == 2)
            #expect(client.statistics.cacheRevalidations == 1)
        }
    }

    @Test func staleMaxAgeEntryIsRevalidatedThenFreshAgain() async throws {
        try await withUpstream(handler: { request in
            if request.header("if-none-match") == "\"v2\"" {
                return .respond(status: 304, headers: [("Cache-Control", "max-age=60")])
            }
            return .respond(status: 200, headers: [("ETag", "\"v2\""), ("Cache-Control", "max-age=0")], body: Self.body)
        }) { upstream, client in
            _ = try await client.send(UpstreamRequest(url: upstream.url("/v2")))
            let revalidated = try await client.send(UpstreamRequest(url: upstream.url("/v2")))
            #expect(revalidated.cacheStatus == .revalidated)
            #expect(revalidated.isFresh)
            let hit = try await client.send(UpstreamRequest(url: upstream.url("/v2")))
            #expect(hit.cacheStatus == .hit)
            #expect(upstream.requestCount == 2)
        }
    }

    @Test func noStoreAndPrivateAreNeverCached() async throws {
        try await withUpstream(handler: { request in
            .respond(status: 200, headers: [("Cache-Control", request.path == "/private" ? "private, max-age=60" : "no-store"),
                                            ("ETag", "\"x\"")], body: Self.body)
        }) { upstream, client in
            for path in ["/nostore", "/nostore", "/private", "/private"] {
                let response = try await client.send(UpstreamRequest(url: upstream.url(path)))
                #expect(response.cacheStatus == .miss)
                #expect(response.freshUntil == nil)
            }
            #expect(upstream.requestCount == 4)
        }
    }

    @Test func redirectPolicyIsPartOfTheCacheKey() async throws {
        try await withUpstream(handler: { request in
            request.path == "/old"
                ? .respond(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=60")])
                : .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Self.body)
        }) { upstream, client in
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/old"))).status == 301)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/old"))).cacheStatus == .hit)
            let followed = try await client.send(UpstreamRequest(url: upstream.url("/old"), followRedirects: true))
            #expect(followed.status == 200)
            #expect(followed.body == Self.body)
        }
    }

    @Test func errorsAreNotCachedWithoutExplicitLifetime() async throws {
        try await withUpstream(handler: { _ in .respond(status: 500, body: Array("boom".utf8)) }) { upstream, client in
            _ = try await client.send(UpstreamRequest(url: upstream.url("/e")))
            let second = try await client.send(UpstreamRequest(url: upstream.url("/e")))
            #expect(second.cacheStatus == .miss)
            #expect(upstream.requestCount == 2)
        }
    }
}
