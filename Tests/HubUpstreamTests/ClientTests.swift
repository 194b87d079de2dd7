import Foundation
import HubTestSupport
import HubUpstream
import Testing

/// The transport: statuses, errors, limits, file URLs, methods, redirects, decoding.
@Suite struct ClientTests {
    static let json = Array(#"{"ok":true}"#.utf8)

    @Test func successReturnsStatusHeadersAndBody() async throws {
        try await withUpstream(handler: { _ in
            .respond(status: 200, headers: [("Content-Type", "application/json"), ("X-Trace", "abc")], body: Self.json)
        }) { upstream, client in
            let response = try await client.send(UpstreamRequest(url: upstream.url("/items")))
            #expect(response.status == 200)
            #expect(response.body == Self.json)
            #expect(response.header("content-type") == "application/json")
            #expect(response.header("X-TRACE") == "abc")
            #expect(response.cacheStatus == .miss)
            #expect(response.freshUntil == nil)
            #expect(try await client.fetchJSONBytes(UpstreamRequest(url: upstream.url("/items"))) == Self.json)
        }
    }

    @Test func serverErrorIsReturnedAndThrownWithBoundedSnippet() async throws {
        let body = Array(repeating: UInt8(ascii: "e"), count: 2000)
        try await withUpstream(handler: { _ in .respond(status: 500, body: body) }) { upstream, client in
            let response = try await client.send(UpstreamRequest(url: upstream.url("/fail")))
            #expect(response.status == 500)
            let error = try await #require(throws: UpstreamError.self) {
                try await client.sendExpectingSuccess(UpstreamRequest(url: upstream.url("/fail")))
            }
            #expect(error.kind == .httpStatus(500))
            #expect(!error.isTimeout)
            #expect(error.bodySnippet?.utf8.count == UpstreamError.snippetLimit)
            #expect(error.description == "upstream answered HTTP 500")
        }
    }

    @Test func slowUpstreamTimesOut() async throws {
        // The upstream would answer after 60 s; the 200 ms timeout must cut it. The bound only
        // proves "not the upstream's answer" and stays generous for a loaded machine.
        try await withUpstream(handler: { _ in .respond(status: 200, body: Self.json, delay: .seconds(60)) }) { upstream, client in
            let started = ContinuousClock.now
            let error = try await #require(throws: UpstreamError.self) {
                try await client.send(UpstreamRequest(url: upstream.url("/slow"), timeout: .milliseconds(200)))
            }
            #expect(error.kind == .timeout)
            #expect(error.isTimeout)
            #expect(started.duration(to: .now) < .seconds(30))
        }
    }

    @Test func refusedConnectionIsConnectFailed() async throws {
        // A port bound without listening, held for the whole test: it refuses, and no other
        // test's server can take it meanwhile (a freed port could be reused at once).
        let refusing = try RefusingPort()
        let client = CurlUpstreamClient()
        defer { client.shutdown() }
        let error = try await #require(throws: UpstreamError.self) {
            try await client.send(UpstreamRequest(url: refusing.url("/gone")))
        }
        #expect(error.kind == .connectFailed)
        withExtendedLifetime(refusing) {}
    }

    @Test func connectTimeoutIsATimeout() async throws {
        let listener = try FullBacklogListener()
        let client = CurlUpstreamClient()
        defer { client.shutdown() }
        let started = ContinuousClock.now
        // The connect timeout (200 ms), not the total one (60 s), must end it.
        let request = UpstreamRequest(url: "http://127.0.0.1:\(listener.port)/", timeout: .seconds(60), connectTimeout: .milliseconds(200))
        let error = try await #require(throws: UpstreamError.self) { try await client.send(request) }
        #expect(error.kind == .timeout)
        #expect(started.duration(to: .now) < .seconds(30))
    }

    @Test func closeWithoutAnswerIsConnectionReset() async throws {
        try await withUpstream(handler: { _ in .close }) { upstream, client in
            let error = try await #require(throws: UpstreamError.self) {
                try await client.send(UpstreamRequest(url: upstream.url("/nothing")))
            }
            #expect(error.kind == .connectionReset)
        }
    }

    @Test func resetMidBodyIsConnectionReset() async throws {
        try await withUpstream(handler: { _ in
            .resetMidBody(declaredLength: 1000, partial: Array(#"{"items":["#.utf8))
        }) { upstream, client in
            let error = try await #require(throws: UpstreamError.self) {
                try await client.send(UpstreamRequest(url: upstream.url("/reset")))
            }
            #expect(error.kind == .connectionReset)
        }
    }

    @Test func invalidAndEmptyBodiesAreFlagged() async throws {
        try await withUpstream(handler: { request in
            request.path == "/empty" ? .respond(status: 200) : .respond(status: 200, body: Array("<html>oops".utf8))
        }) { upstream, client in
            let invalid = try await #require(throws: UpstreamError.self) {
                try await client.fetchJSONBytes(UpstreamRequest(url: upstream.url("/html")))
            }
            #expect(invalid.kind == .invalidJSON)
            let empty = try await #require(throws: UpstreamError.self) {
                try await client.fetchJSONBytes(UpstreamRequest(url: upstream.url("/empty")))
            }
            #expect(empty.kind == .emptyBody)
        }
    }

    @Test func bodiesOverTheLimitAreAborted() async throws {
        let big = Array(repeating: UInt8(ascii: "x"), count: 5000)
        let configuration = UpstreamConfiguration(maxResponseBytes: 1000)
        try await withUpstream(configuration: configuration, handler: { request in
            switch request.path {
            case "/chunked": .chunked(chunks: Array(repeating: Array(big[..<500]), count: 10))
            case "/exact": .respond(status: 200, body: Array(big[..<1000]))
            default: .respond(status: 200, body: big)
            }
        }) { upstream, client in
            for path in ["/length", "/chunked"] {
                let error = try await #require(throws: UpstreamError.self) {
                    try await client.send(UpstreamRequest(url: upstream.url(path), cachePolicy: .bypass))
                }
                #expect(error.kind == .tooLarge, "\(path)")
            }
            // Exactly at the limit is fine.
            let atLimit = try await client.send(UpstreamRequest(url: upstream.url("/exact")))
            #expect(atLimit.body.count == 1000)
        }
    }

    @Test func fileURLsReadFilesAndMissingFilesAreClear() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hub-upstream-\(UUID().uuidString).json").path
        try Data(Self.json).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let client = CurlUpstreamClient()
        defer { client.shutdown() }
        let response = try await client.send(UpstreamRequest(url: "file://" + path))
        #expect(response.status == 200)
        #expect(response.body == Self.json)
        let error = try await #require(throws: UpstreamError.self) {
            try await client.send(UpstreamRequest(url: "file://" + path + ".missing"))
        }
        #expect(error.kind == .fileNotFound)
        #expect(error.description == "upstream file not found")
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "gopher://127.0.0.1/", "http://[::1", "nonsense", "127.0.0.1/x", "http:/127.0.0.1/"])
    func badURLsAreInvalidURL(url: String) async throws {
        let client = CurlUpstreamClient()
        defer { client.shutdown() }
        let error = try await #require(throws: UpstreamError.self) { try await client.send(UpstreamRequest(url: url)) }
        #expect(error.kind == .invalidURL)
    }

    @Test func postSendsBodyAndHeadersAndBypassesCache() async throws {
        try await withUpstream(handler: { request in
            .respond(status: 201, headers: [("X-Method", request.method), ("X-Type", request.header("content-type") ?? "-"),
                                            ("Cache-Control", "max-age=60")], body: request.body)
        }) { upstream, client in
            let payload = Array(#"{"action":"cart:add"}"#.utf8)
            let request = UpstreamRequest(url: upstream.url("/cart/add"), method: "POST",
                                          headers: [("Content-Type", "application/json")], body: payload)
            let response = try await client.send(request)
            #expect(response.status == 201)
            #expect(response.body == payload)
            #expect(response.header("x-method") == "POST")
            #expect(response.header("x-type") == "application/json")
            #expect(response.cacheStatus == .bypass)
            let put = try await client.send(UpstreamRequest(url: upstream.url("/x"), method: "PUT", body: payload))
            #expect(put.header("x-method") == "PUT")
            #expect(put.body == payload)
        }
    }

    @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
        try await withUpstream(handler: { request in
            request.path == "/old"
                ? .respond(status: 302, headers: [("Location", "/new")])
                : .respond(status: 200, body: Self.json)
        }) { upstream, client in
            let plain = try await client.send(UpstreamRequest(url: upstream.url("/old")))
            #expect(plain.status == 302)
            #expect(plain.header("location") == "/new")
            let followed = try await client.send(UpstreamRequest(url: upstream.url("/old"), followRedirects: true))
            #expect(followed.status == 200)
            #expect(followed.body == Self.json)
        }
    }

    @Test func gzipBodiesAreDecoded() async throws {
        let gzipped: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 74, 206, 207, 45, 40, 74, 45, 46, 78, 77, 81, 178, 42, 41, 42,
            77, 213, 81, 42, 72, 4, 50, 149, 42, 134, 9, 80, 170, 5, 0, 236, 151, 42, 247, 228, 0, 0, 0,
        ]
        try await withUpstream(handler: { request in
            .respond(status: 200, headers: [("Content-Encoding", "gzip"), ("X-Accept", request.header("accept-encoding") ?? "-")],
                     body: gzipped)
        }) { upstream, client in
            let response = try await client.send(UpstreamRequest(url: upstream.url("/gz")))
            let expected = #"{"compressed":true,"pad":""# + String(repeating: "x", count: 200) + #""}"#
            #expect(response.body == Array(expected.utf8))
            #expect(response.header("x-accept")?.contains("gzip") == true)
        }
    }

    @Test func headersWithLineBreaksAreRejected() async throws {
        try await withUpstream(handler: { _ in .respond(status: 200) }) { upstream, client in
            let error = try await #require(throws: UpstreamError.self) {
                try await client.send(UpstreamRequest(url: upstream.url("/"), headers: [("X-Bad", "a\r\nInjected: 1")]))
            }
            #expect(error.kind == .other)
            #expect(upstream.requestCount == 0)
        }
    }
}
