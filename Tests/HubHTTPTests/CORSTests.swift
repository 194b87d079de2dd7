import HubSync
import Testing
@testable import HubHTTP

/// `CORSPolicy` and `CORSMiddleware` through a real router (the Fetch standard's CORS protocol).
@Suite struct CORSTests {
    static let app = "http://127.0.0.1:5173"

    /// A router with GET /view, DELETE /view, POST /action; CORS outside ErrorMiddleware, as HubApplication wires it.
    static func responder(_ policy: CORSPolicy, rejections: Locked<[CORSMiddleware.Rejection]>) -> any HTTPResponder {
        var router = Router()
        router.add(.get, "/view") { _, _ in
            var response = HTTPResponse.json(Array(#"{"ok":true}"#.utf8))
            response.headers.add(name: "Vary", value: "Accept-Encoding")
            response.headers.add(name: "Hub-Session", value: "s1")
            return response
        }
        router.add(.delete, "/view") { _, _ in HTTPResponse(status: .noContent) }
        router.add(.post, "/action") { _, _ in throw HTTPError(.notFound, code: "session_not_found", detail: "gone") }
        let routes = router
        return router.wrapped(in: [
            CORSMiddleware(policy: policy, routes: { routes.route(for: $0) }) { rejection in
                rejections.withLock { $0.append(rejection) }
            },
            ErrorMiddleware(),
        ])
    }

    func send(
        _ policy: CORSPolicy, _ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders,
        rejections: Locked<[CORSMiddleware.Rejection]> = Locked([])
    ) async throws -> HTTPResponse {
        let request = HTTPRequest(method: method, target: target, headers: headers)
        return try await Self.responder(policy, rejections: rejections).respond(to: request, context: RequestContext(requestId: "t"))
    }

    @Test func policyValidation() throws {
        #expect(throws: CORSPolicy.InvalidPolicy.self) { try CORSPolicy(origins: ["*"], allowCredentials: true) }
        #expect(throws: CORSPolicy.InvalidPolicy.self) { try CORSPolicy(origins: ["*", Self.app]) }
        #expect(throws: CORSPolicy.InvalidPolicy.self) { try CORSPolicy(origins: []) }
        for bad in ["null", "app.example.com", "https://app.example.com/", "https://user@app.example.com", "https://a.com:99999",
                    "https://", "ftp//x", "https://a b.com"] {
            #expect(throws: CORSPolicy.InvalidPolicy.self, "\(bad)") { try CORSPolicy(origins: [bad]) }
        }
        #expect(throws: CORSPolicy.InvalidPolicy.self) { try CORSPolicy(origins: [Self.app], allowedHeaders: ["Bad Header"]) }
        #expect(CORSPolicy.normalizedOrigin("HTTPS://App.Example.COM:443") == "https://app.example.com")
        #expect(CORSPolicy.normalizedOrigin("http://127.0.0.1:80") == "http://127.0.0.1")
        #expect(CORSPolicy.normalizedOrigin("http://[::1]:8080") == "http://[::1]:8080")
        let policy = try CORSPolicy(origins: ["https://App.Example.com:443"])
        #expect(policy.allowOrigin(for: "https://app.example.com") == "https://app.example.com")
        #expect(policy.allowOrigin(for: "https://app.example.com.evil.net") == nil)
        #expect(policy.allowOrigin(for: "http://app.example.com") == nil)
        #expect(policy.allowOrigin(for: "null") == nil)
        #expect(policy.allowsHeader("hub-toggle") && policy.allowsHeader("Content-Type") && policy.allowsHeader("TRACEPARENT"))
        #expect(!policy.allowsHeader("Authorization") && !policy.allowsHeader("Hu"))
    }

    @Test("a preflight to a route without OPTIONS answers 204 with its methods and the allowed requested headers")
    func preflight() async throws {
        let policy = try CORSPolicy(origins: [Self.app], maxAgeSeconds: 300)
        let response = try await send(policy, .options, "/action", [
            "Origin": Self.app, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, hub-client,x-evil",
        ])
        #expect(response.status == .noContent)
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.app)
        #expect(response.headers["Access-Control-Allow-Methods"] == "POST")
        #expect(response.headers["Access-Control-Allow-Headers"] == "content-type, hub-client")
        #expect(response.headers["Access-Control-Max-Age"] == "300")
        #expect(response.headers["Access-Control-Allow-Credentials"] == nil)
        #expect(response.headers.containsToken("Origin", in: "Vary"))
        #expect(response.headers.containsToken("Access-Control-Request-Headers", in: "Vary"))

        let view = try await send(policy, .options, "/view", ["Origin": Self.app, "Access-Control-Request-Method": "DELETE"])
        #expect(view.status == .noContent)
        #expect(view.headers["Access-Control-Allow-Methods"] == "DELETE, GET, HEAD")
        #expect(view.headers["Access-Control-Allow-Headers"] == nil)
    }

    @Test("a preflight from a disallowed origin is 403 without CORS headers and reported")
    func preflightRejected() async throws {
        let rejections = Locked<[CORSMiddleware.Rejection]>([])
        let response = try await send(
            try CORSPolicy(origins: [Self.app]), .options, "/action",
            ["Origin": "http://127.0.0.1:5174", "Access-Control-Request-Method": "POST"], rejections: rejections)
        #expect(response.status == .forbidden)
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        #expect(response.headers["Access-Control-Allow-Methods"] == nil)
        #expect(rejections.withLock { $0 } == [.preflight])
    }

    @Test("OPTIONS that is not a preflight, and a preflight to an unknown path, go to the router")
    func notPreflight() async throws {
        let policy = try CORSPolicy(origins: [Self.app])
        let options = try await send(policy, .options, "/action", ["Origin": Self.app])
        #expect(options.status == .methodNotAllowed)
        #expect(options.headers["Access-Control-Allow-Origin"] == Self.app, "problems are readable cross-origin")
        let unknown = try await send(policy, .options, "/nope", ["Origin": Self.app, "Access-Control-Request-Method": "GET"])
        #expect(unknown.status == .notFound)
    }

    @Test("an allowed origin gets Allow-Origin, Expose-Headers and Vary: Origin, on problems too")
    func actualRequest() async throws {
        let policy = try CORSPolicy(origins: [Self.app, "https://app.example.com"], allowCredentials: true)
        let response = try await send(policy, .get, "/view", ["Origin": Self.app])
        #expect(response.status == .ok)
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.app)
        #expect(response.headers["Access-Control-Allow-Credentials"] == "true")
        #expect(response.headers["Access-Control-Expose-Headers"] == "Hub-Session, ETag, Server-Timing, Hub-Version, X-Request-Id, Retry-After, Hub-Rebuilt")
        #expect(response.headers["Vary"] == "Accept-Encoding, Origin")

        let problem = try await send(policy, .post, "/action", ["Origin": "https://app.example.com"])
        #expect(problem.status == .notFound)
        #expect(problem.headers["Access-Control-Allow-Origin"] == "https://app.example.com")

        let noOrigin = try await send(policy, .get, "/view", [:])
        #expect(noOrigin.headers["Access-Control-Allow-Origin"] == nil)
        #expect(noOrigin.headers.containsToken("Origin", in: "Vary"), "a cache must not serve it to a browser")
    }

    @Test("a disallowed origin gets no CORS headers and is reported; a same-origin request is not")
    func disallowedRequest() async throws {
        let rejections = Locked<[CORSMiddleware.Rejection]>([])
        let policy = try CORSPolicy(origins: [Self.app])
        let response = try await send(policy, .get, "/view", ["Origin": "http://evil.example"], rejections: rejections)
        #expect(response.status == .ok)
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        #expect(response.headers["Access-Control-Expose-Headers"] == nil)
        #expect(response.headers.containsToken("Origin", in: "Vary"))
        #expect(rejections.withLock { $0 } == [.request])
        _ = try await send(policy, .get, "/view", ["Origin": "http://127.0.0.1:8080", "Host": "127.0.0.1:8080"], rejections: rejections)
        #expect(rejections.withLock { $0 } == [.request])
    }

    @Test("* answers the literal *, never the request's Origin, and needs no Vary")
    func wildcard() async throws {
        let policy = try CORSPolicy(origins: ["*"])
        let response = try await send(policy, .get, "/view", ["Origin": "https://anyone.example"])
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["Access-Control-Allow-Credentials"] == nil)
        #expect(response.headers["Vary"] == "Accept-Encoding")
        let preflight = try await send(policy, .options, "/view", ["Origin": "null", "Access-Control-Request-Method": "GET"])
        #expect(preflight.status == .noContent)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "*")
    }
}
