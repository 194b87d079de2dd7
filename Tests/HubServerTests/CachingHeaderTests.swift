import Foundation
import HubDemo
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Every endpoint's caching headers, judged by one rule (RFC 9111), over a real loopback socket
/// with (a copy of) the demo `Config/`:
///
/// - every response says `Cache-Control` explicitly (no cache guesses a lifetime);
/// - a problem (4xx, 5xx) is `no-store`;
/// - an event stream is `no-cache` or `no-store`; a session's (`GET /view/events`) is `private, no-store`;
/// - a response that names a session (`Hub-Session`) is `private` or `no-store`;
/// - no response says `public` (no request is authenticated, so nothing needs it);
/// - a 200 to GET or HEAD that a cache may keep (not `no-store`) carries an `ETag`, and the same
///   request with `If-None-Match` set to it answers 304 with that `ETag` and `Cache-Control`.
///
/// The operations come from docs/openapi.json (which `ContractTests` holds equal to the routes),
/// so an endpoint added without a request here fails the test.
@Suite("Caching headers")
struct CachingHeaderTests {
    /// `METHOD /path` of every operation docs/openapi.json describes.
    static func documentedOperations() throws -> Set<String> {
        let document = try JSONParser().parse(Array(try BuildContext.read("docs/openapi.json").utf8))
        var operations = Set<String>()
        for (path, item) in try #require(document["paths"]?.objectValue) {
            for (method, _) in try #require(item.objectValue) { operations.insert("\(method.uppercased()) \(path)") }
        }
        return operations
    }

    /// The directives of a `Cache-Control` value, lowercased, without arguments.
    static func directives(_ value: String?) -> Set<String> {
        Set((value ?? "").split(separator: ",").map {
            $0.split(separator: "=").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        })
    }

    /// Checks `response` (to `method target` sent with `headers`) against the rule; revalidates
    /// with `If-None-Match` where the rule asks for it.
    static func check(
        _ response: LoopbackResponse, _ method: String, _ target: String, headers: [(String, String)] = [],
        client: HubClient
    ) async throws {
        let name = "\(method) \(target) (\(response.status))"
        let cacheControl = response.header("Cache-Control")
        let directives = Self.directives(cacheControl)
        #expect(cacheControl != nil, "\(name) has no Cache-Control")
        #expect(!directives.contains("public"), "\(name) says public: \(cacheControl ?? "-")")
        if response.status >= 400 {
            #expect(directives.contains("no-store"), "\(name): a problem is no-store, not \(cacheControl ?? "-")")
            return
        }
        if response.header("Hub-Session") != nil {
            #expect(directives.contains("private") || directives.contains("no-store"), "\(name) names a session: \(cacheControl ?? "-")")
        }
        guard (method == "GET" || method == "HEAD"), response.status == 200, !directives.contains("no-store") else { return }
        let etag = try #require(response.header("ETag"), "\(name) may be kept by a cache but has no validator")
        let again = try await client.send(method, target, headers: headers + [("If-None-Match", etag)])
        #expect(again.status == 304, "\(name) revalidated with If-None-Match: \(again.status)")
        #expect(again.header("ETag") == etag, "\(name): the 304's ETag")
        #expect(again.header("Cache-Control") == cacheControl, "\(name): the 304's Cache-Control")
        #expect(again.body.isEmpty)
    }

    @Test("every endpoint's responses follow the caching rule, problems and streams included")
    func everyEndpoint() async throws {
        var environment = testEnvironment
        environment["HUB_PORT"] = "0"
        environment["HUB_INVALIDATION_SECRETS"] = Invalidation.secret
        try await DemoConfigTests.withDemoHub(environment: environment, transport: .socket) {
            client, _ in
            var covered = Set<String>()
            /// Sends `method target`, checks the answer, and records the operation it exercises.
            func exercise(
                _ operation: String, _ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil,
                status: Int
            ) async throws -> LoopbackResponse {
                var all = headers
                if body != nil { all.append(("Content-Type", "application/json")) }
                let response = try await client.send(method, target, headers: all, body: body.map { Array($0.utf8) })
                #expect(response.status == status, "\(method) \(target): \(response)")
                try await Self.check(response, method, target, headers: all, client: client)
                covered.insert(operation)
                return response
            }

            let todo = try await exercise("GET /view", "GET", "/view?uri=hub:todo", status: 200)
            let session = try #require(todo.header("Hub-Session"))
            _ = try await exercise("GET /view", "GET", "/view?uri=hub:food", status: 200)
            _ = try await exercise("GET /view", "GET", "/view", headers: [("Hub-Session", session)], status: 200)
            _ = try await exercise("GET /view", "GET", "/view?uri=hub:nope", status: 404)
            _ = try await exercise("GET /view", "GET", "/view", status: 400)
            _ = try await exercise("HEAD /view", "HEAD", "/view?uri=hub:food", status: 200)
            _ = try await exercise("GET /view/initial", "GET", "/view/initial?uri=hub:food", status: 200)
            _ = try await exercise(
                "POST /action", "POST", "/action", headers: [("Hub-Session", session)],
                body: #"{"action":"todo:add","custom":{"title":"Ship it"}}"#, status: 200)
            _ = try await exercise("POST /action", "POST", "/action", body: "{}", status: 422)
            let catalog = try await exercise("GET /view", "GET", "/view?uri=hub:catalog", status: 200)
            let catalogSession = try #require(catalog.header("Hub-Session"))
            _ = try await exercise(
                "POST /view/next-page", "POST", "/view/next-page", headers: [("Hub-Session", catalogSession)], body: "{}", status: 200)

            let stream = try await client.events(target: "/view/events", headers: [("Hub-Session", session)])
            #expect(stream.status == 200)
            #expect(stream.header("Content-Type") == "text/event-stream")
            #expect(stream.header("Hub-Session") != nil)
            #expect(Self.directives(stream.header("Cache-Control")) == ["private", "no-store"], "GET /view/events")
            stream.close()
            covered.insert("GET /view/events")
            let head = try await client.send("HEAD", "/view/events", headers: [("Hub-Session", session)])
            #expect(head.status == 200)
            #expect(Self.directives(head.header("Cache-Control")) == ["private", "no-store"], "HEAD /view/events")
            _ = try await exercise("GET /view/events", "GET", "/view/events?session=garbage", status: 404)

            for path in ["/health", "/ready", "/metrics", "/features", "/preview", "/openapi.json", "/schema/view-model.json"] {
                _ = try await exercise("GET \(path)", "GET", path, status: 200)
            }
            _ = try await exercise("GET /preview", "GET", "/preview?uri=hub:food", status: 200)
            _ = try await exercise("GET /preview", "GET", "/preview?uri=hub:nope", status: 404)
            _ = try await exercise("GET /schema/config/{file}", "GET", "/schema/config/server.json", status: 200)
            _ = try await exercise("GET /schema/config/{file}", "GET", "/schema/config/nope.json", status: 404)
            _ = try await exercise("DELETE /view", "DELETE", "/view", headers: [("Hub-Session", session)], status: 204)
            _ = try await exercise("DELETE /view", "DELETE", "/view", status: 400)
            let invalidation = #"{"tags":["nothing-uses-this"]}"#
            let now = Invalidation.now()
            _ = try await exercise(
                "POST /invalidate", "POST", "/invalidate",
                headers: [("Hub-Signature-Timestamp", "\(now)"),
                          ("Hub-Signature", Invalidation.signature(invalidation, secret: Invalidation.secret, timestamp: now))],
                body: invalidation, status: 202)
            _ = try await exercise("POST /invalidate", "POST", "/invalidate", body: invalidation, status: 401)
            // Answers of the router and the HTTP layer, on no operation of their own.
            try await Self.check(try await client.send("GET", "/nope"), "GET", "/nope", client: client)
            try await Self.check(try await client.send("POST", "/health"), "POST", "/health", client: client)
            try await Self.check(try await client.send("GET", "/view?uri=%zz"), "GET", "/view?uri=%zz", client: client)

            #expect(try Self.documentedOperations().subtracting(covered).sorted() == [], "operations this test does not exercise")
        }
    }

    @Test("GET /features revalidates to 304 until a config reload changes it, then answers the new list with a new ETag")
    func featuresChangeWithReload() async throws {
        var config = TestConfig()
        config.feature("a", #"{"id": "a", "title": "A", "match": {"uri": "hub:a"}, "operations": [{"kind": "static", "json": {"title": "A"}}]}"#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory) { client, app in
            let first = try await client.get("/features")
            let etag = try #require(first.header("ETag"))
            #expect(first.header("Cache-Control") == "no-cache")
            #expect(try await client.get("/features", headers: [("If-None-Match", etag)]).status == 304)

            let feature = #"{"id": "b", "title": "B", "match": {"uri": "hub:b"}, "operations": [{"kind": "static", "json": {"title": "B"}}]}"#
            try Data(feature.utf8).write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent("features/b.json")))
            let reload = await app.reloadConfiguration(trigger: "test")
            #expect(reload.succeeded, "\(reload.issues)")
            let changed = try await client.get("/features", headers: [("If-None-Match", etag)])
            #expect(changed.status == 200)
            #expect(changed.header("ETag") != etag)
            let ids = try changed.json()["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(ids == ["a", "b"])
        }
    }
}
