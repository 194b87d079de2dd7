import Foundation
import HubSync
import HubTestSupport
@testable import HubUpstream
import Testing

/// An eviction (`POST /invalidate`) while a fetch of the content is in flight: the response that
/// fetch brings back was produced before the change, so the cache must not keep it, or the old
/// content would be served as fresh until its `max-age` ran out.
@Suite struct InFlightEvictionTests {
    static let old = Array(#"{"version":1}"#.utf8)
    static let new = Array(#"{"version":2}"#.utf8)
    static let generous = UpstreamConfiguration(timeout: .seconds(60), connectTimeout: .seconds(30))

    @Test func aFetchInFlightDuringAnEvictionIsNotStored() async throws {
        let gate = ThreadGate()
        defer { gate.open() }
        let version = Locked(1)
        try await withUpstream(configuration: Self.generous, handler: { _ in
            let body = version.withLock { $0 } == 1 ? Self.old : Self.new
            if body == Self.old { gate.wait() }
            return .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: body)
        }) { upstream, client in
            let url = upstream.url("/page")
            let first = Task { try await client.send(UpstreamRequest(url: url)) }
            #expect(await waitUntil { upstream.requestCount == 1 }, "the first fetch reached the upstream")
            // The content changes at its source and the invalidation arrives while that fetch waits.
            version.withLock { $0 = 2 }
            #expect(client.evictCached { candidate, _ in candidate == url } == 0, "nothing was stored yet")
            gate.open()
            #expect(try await first.value.body == Self.old, "the caller that asked before still gets its answer")
            let second = try await client.send(UpstreamRequest(url: url))
            #expect(second.body == Self.new, "the response fetched before the eviction was not kept")
            #expect(second.cacheStatus == .miss)
            #expect(upstream.requestCount == 2)
            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .hit, "what came after is kept")
        }
    }

    @Test func withoutAnEvictionTheSameFetchIsStored() async throws {
        let gate = ThreadGate()
        defer { gate.open() }
        try await withUpstream(configuration: Self.generous, handler: { _ in
            gate.wait()
            return .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: Self.old)
        }) { upstream, client in
            let url = upstream.url("/page")
            let first = Task { try await client.send(UpstreamRequest(url: url)) }
            #expect(await waitUntil { upstream.requestCount == 1 })
            gate.open()
            _ = try await first.value
            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .hit)
            #expect(upstream.requestCount == 1)
        }
    }
}
