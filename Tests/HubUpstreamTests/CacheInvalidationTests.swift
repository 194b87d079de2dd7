import HubSync
import HubTestSupport
import HubUpstream
import Testing

/// RFC 9111 4.4 over a real upstream: a successful unsafe request drops the cached GETs of its
/// target URI and of same-origin `Location`/`Content-Location` URIs; errors and safe methods do not.
@Suite struct CacheInvalidationTests {
    static let body = Array(#"{"items":[1,2,3]}"#.utf8)

    /// GETs are cacheable for a minute; every other method answers the status in its `X-Status`
    /// request header (201 without one) with `unsafeHeaders`.
    static func handler(unsafeHeaders: [(String, String)] = []) -> TestUpstream.Handler {
        { request in
            if request.method == "GET" {
                return .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Self.body)
            }
            let status = request.header("x-status").flatMap { Int($0) } ?? 201
            return .respond(status: status, headers: unsafeHeaders)
        }
    }

    @Test(arguments: ["POST", "PUT", "PATCH", "DELETE"])
    func successfulUnsafeRequestInvalidatesTheTargetURI(method: String) async throws {
        try await withUpstream(handler: Self.handler()) { upstream, client in
            let url = upstream.url("/items")
            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .miss)
            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .hit)
            // Another request identity (different headers) for the same URI.
            let withHeader = UpstreamRequest(url: url, headers: [("Authorization", "a")])
            #expect(try await client.send(withHeader).cacheStatus == .miss)
            // An unrelated URI stays cached.
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/other"))).cacheStatus == .miss)
            #expect(upstream.requestCount == 3)

            let body: [UInt8]? = method == "DELETE" ? nil : Array("{}".utf8)
            let unsafe = try await client.send(UpstreamRequest(url: url, method: method, body: body))
            #expect(unsafe.status == 201)
            #expect(upstream.requestCount == 4)

            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .miss)
            #expect(try await client.send(withHeader).cacheStatus == .miss)
            #expect(upstream.requestCount == 6)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/other"))).cacheStatus == .hit)
            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .hit)
            #expect(upstream.requestCount == 6)
        }
    }

    @Test func equivalentSpellingOfTheURIIsInvalidatedToo() async throws {
        try await withUpstream(handler: Self.handler()) { upstream, client in
            let cached = "http://127.0.0.1:\(upstream.port)/a/items?x=1"
            _ = try await client.send(UpstreamRequest(url: cached))
            #expect(try await client.send(UpstreamRequest(url: cached)).cacheStatus == .hit)
            let spelled = "HTTP://127.0.0.1:\(upstream.port)/a/b/../items?x=1#frag"
            _ = try await client.send(UpstreamRequest(url: spelled, method: "POST", body: []))
            #expect(try await client.send(UpstreamRequest(url: cached)).cacheStatus == .miss)
        }
    }

    @Test func errorAnswersAndSafeMethodsDoNotInvalidate() async throws {
        try await withUpstream(handler: Self.handler()) { upstream, client in
            let url = upstream.url("/items")
            _ = try await client.send(UpstreamRequest(url: url))
            for status in [400, 404, 500, 503] {
                let answer = try await client.send(UpstreamRequest(url: url, method: "POST", headers: [("X-Status", "\(status)")], body: []))
                #expect(answer.status == status)
            }
            // Safe methods never invalidate either.
            for method in ["HEAD", "OPTIONS"] {
                _ = try await client.send(UpstreamRequest(url: url, method: method))
            }
            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .hit)
            #expect(upstream.requestCount == 7)
            // A redirect (3xx) is a non-error answer: it invalidates.
            _ = try await client.send(UpstreamRequest(url: url, method: "POST", headers: [("X-Status", "303")], body: []))
            #expect(try await client.send(UpstreamRequest(url: url)).cacheStatus == .miss)
        }
    }

    @Test func sameOriginLocationAndContentLocationAreInvalidated() async throws {
        let upstreamPort = Locked(0)
        try await withUpstream(handler: { request in
            let port = upstreamPort.withLock { $0 }
            switch (request.method, request.path) {
            case ("GET", _):
                return .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Self.body)
            case (_, "/items"):
                // Relative Location, absolute same-origin Content-Location.
                return .respond(status: 201, headers: [("Location", "items/7"),
                                                       ("Content-Location", "http://127.0.0.1:\(port)/summary")])
            default:
                return .respond(status: 204, headers: [("Location", "../lists/../items/8")])
            }
        }) { upstream, client in
            upstreamPort.withLock { $0 = upstream.port }
            let paths = ["/items", "/items/7", "/summary", "/items/8", "/items/9"]
            for path in paths { _ = try await client.send(UpstreamRequest(url: upstream.url(path))) }
            #expect(upstream.requestCount == 5)

            _ = try await client.send(UpstreamRequest(url: upstream.url("/items"), method: "POST", body: []))
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/items"))).cacheStatus == .miss)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/items/7"))).cacheStatus == .miss)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/summary"))).cacheStatus == .miss)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/items/8"))).cacheStatus == .hit)

            // `../lists/../items/8` against /items/9 is /items/8.
            _ = try await client.send(UpstreamRequest(url: upstream.url("/items/9"), method: "DELETE"))
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/items/8"))).cacheStatus == .miss)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/items/9"))).cacheStatus == .miss)
            #expect(upstream.requestCount == 5 + 1 + 3 + 1 + 2)
        }
    }

    @Test func crossOriginLocationIsNotInvalidated() async throws {
        let other = try TestUpstream { _ in
            .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Self.body)
        }
        defer { other.stop() }
        let foreign = other.url("/items/1")
        try await withUpstream(handler: Self.handler(unsafeHeaders: [("Location", foreign), ("Content-Location", foreign)])) { upstream, client in
            _ = try await client.send(UpstreamRequest(url: foreign))
            _ = try await client.send(UpstreamRequest(url: upstream.url("/items/1")))
            _ = try await client.send(UpstreamRequest(url: upstream.url("/items"), method: "POST", body: []))
            // The other origin (another port) keeps its entry; the same path here was never named.
            #expect(try await client.send(UpstreamRequest(url: foreign)).cacheStatus == .hit)
            #expect(try await client.send(UpstreamRequest(url: upstream.url("/items/1"))).cacheStatus == .hit)
            #expect(other.requestCount == 1)
        }
    }
}
