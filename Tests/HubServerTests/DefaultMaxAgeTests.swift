import Foundation
import HubModel
import HubOperations
import HubServer
import HubSync
import HubTestSupport
import Testing

/// A remote operation's `defaultMaxAgeSeconds`: an upstream that states no lifetime (only an
/// `ETag` here, as many APIs send) gets one, so the view's chain is memoized and the upstream is
/// asked once per lifetime instead of on every open. An operation without it, even on the same
/// URL, still asks every time and is never memoized. Over sockets, against a real upstream, on
/// an upstream clock the test moves.
@Suite("Remote operations: a default lifetime for responses that state none")
struct DefaultMaxAgeTests {
    /// Every open its own session: the sessions stored per client are not the subject here.
    static let server = """
        { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
          "limits": { "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } } }
        """

    /// An upstream answering every path with a view titled by it and only an `ETag` (a 304 to
    /// a request that names it): no `Cache-Control`, no `Expires`.
    static func upstream() throws -> TestUpstream {
        try TestUpstream { request in
            let etag = "\"\(request.path.count)\""
            if request.header("if-none-match") == etag { return .respond(status: 304, headers: [("ETag", etag)]) }
            let body = #"{ "title": "\#(request.path)", "body": [ { "id": "row", "text": { "title": "row" } } ] }"#
            return .respond(status: 200, headers: [("Content-Type", "application/json"), ("ETag", etag)], body: Array(body.utf8))
        }
    }

    /// Features `hub:<id>` of one remote operation each: `(id, url, defaultMaxAgeSeconds)`.
    static func config(_ features: [(id: String, url: String, seconds: Int?)]) -> TestConfig {
        var config = TestConfig(server: server)
        for feature in features {
            let lifetime = feature.seconds.map { #", "defaultMaxAgeSeconds": \#($0)"# } ?? ""
            config.feature(feature.id, """
                { "id": "\(feature.id)", "title": "\(feature.id)", "match": { "uri": "hub:\(feature.id)" },
                  "operations": [ { "kind": "remote", "url": "\(feature.url)"\(lifetime) } ] }
                """)
        }
        return config
    }

    static func fetches(_ upstream: TestUpstream, _ path: String) -> Int {
        upstream.receivedPaths.filter { $0 == path }.count
    }

    static func memoHits(_ client: HubClient, _ feature: String) async throws -> Double {
        try await client.metric(#"hub_chain_memo_hits_total{feature="\#(feature)"}"#) ?? 0
    }

    static func chainRuns(_ client: HubClient, _ feature: String) async throws -> Double {
        try await client.metric(#"hub_chain_duration_seconds_count{feature="\#(feature)"}"#) ?? 0
    }

    @Test("with it, opens ask the upstream once per lifetime and answer from the memo; without it, every open asks")
    func oncePerLifetime() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let clock = ManualClock()
        let config = Self.config([
            ("lifetime", upstream.url("/lifetime"), 60), ("plain", upstream.url("/plain"), nil),
        ])
        try await withHub(config, transport: .socket, upstreamClock: clock.upstreamClock) { client, _ async throws in
            for _ in 0..<3 {
                #expect(try await client.view("hub:lifetime").status == 200)
                #expect(try await client.view("hub:plain").status == 200)
            }
            // The first open records the response's freshness, the second runs the chain with a
            // memo key (from the HTTP cache) and stores it, the third runs nothing.
            #expect(Self.fetches(upstream, "/lifetime") == 1)
            #expect(try await Self.chainRuns(client, "lifetime") == 2)
            #expect(try await Self.memoHits(client, "lifetime") == 1)
            #expect(Self.fetches(upstream, "/plain") == 3, "never fresh: revalidated on every open")
            #expect(try await Self.chainRuns(client, "plain") == 3)
            #expect(try await Self.memoHits(client, "plain") == 0)

            clock.advance(.seconds(59))
            #expect(try await client.view("hub:lifetime").status == 200)
            #expect(Self.fetches(upstream, "/lifetime") == 1)
            #expect(try await Self.memoHits(client, "lifetime") == 2, "still fresh: still from the memo")
            clock.advance(.seconds(1))
            let after = try await client.view("hub:lifetime")
            let title = try after.json()["title"]?.stringValue
            #expect(after.status == 200 && title == "/lifetime")
            #expect(Self.fetches(upstream, "/lifetime") == 2, "past the lifetime: asked again (revalidated)")
            #expect(try await Self.chainRuns(client, "lifetime") == 3)
            #expect(try await client.view("hub:lifetime").status == 200)
            #expect(Self.fetches(upstream, "/lifetime") == 2, "fresh again for the default after the 304")
        }
    }

    @Test("an operation without it on the same URL never takes the lifetime another operation's default gave")
    func sameURLWithoutIt() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let url = upstream.url("/shared")
        try await withHub(Self.config([("given", url, 300), ("stated", url, nil)]), transport: .socket) { client, _ async throws in
            for _ in 0..<3 {
                #expect(try await client.view("hub:given").status == 200)
                #expect(try await client.view("hub:stated").status == 200)
            }
            #expect(Self.fetches(upstream, "/shared") == 4, "one for the default's entry, three for the other's")
            #expect(try await Self.memoHits(client, "given") == 1)
            #expect(try await Self.memoHits(client, "stated") == 0)
            #expect(try await Self.chainRuns(client, "stated") == 3)
        }
    }

    @Test("an invalidation of a URL forgets its freshness whatever the fetch identity adds to it (a locale, a default lifetime)")
    func invalidationForgetsEveryIdentityOfAURL() {
        let freshness = RemoteFreshness()
        let url = "http://upstream.test/rows"
        let body = Array(#"{"body":[]}"#.utf8)
        let keys = [
            RemoteOperation.fetchKey(url, locale: "sv"), RemoteOperation.fetchKey(url, locale: nil, defaultMaxAge: 60),
            RemoteOperation.fetchKey(url, locale: "sv", defaultMaxAge: 60),
        ]
        let other = RemoteOperation.fetchKey("http://upstream.test/other", locale: nil, defaultMaxAge: 60)
        for key in keys + [other] { freshness.record(url: key, body: body, freshUntil: .now + .seconds(60)) }
        #expect(Set(keys + [other]).count == 4, "each a fetch identity of its own")
        freshness.forget { $0 == url }
        for key in keys { #expect(freshness.fingerprint(for: key) == nil, "\(key)") }
        #expect(freshness.fingerprint(for: other) != nil)
    }
}
