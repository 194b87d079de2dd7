import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// The finer print of DESIGN.md's HTTP API and config contracts.
@Suite("Contract edges")
struct ContractEdgeTests {
    @Test("query strings: '+' is a literal plus; escapes to invalid UTF-8 are 400")
    func queryStrings() async throws {
        try await withStandardHub { client, _, _ in
            let plus = try await client.get("/view?uri=hub:a+b")
            #expect(plus.status == 200, "\(plus)")
            #expect(try plus.json().bodyIDs == ["plus"])
            #expect(try await client.get("/view?uri=hub:a%2Bb").status == 200)
            try expectProblem(try await client.get("/view?uri=hub:%C3%28"), 400)
            try expectProblem(try await client.get("/view?uri=hub:%FF"), 400)
            try expectProblem(try await client.delete("/view"), 400)
        }
    }

    @Test("request bodies: lone surrogates, out-of-range numbers, nesting past jsonDepth, invalid UTF-8 are 400")
    func badBodies() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(try await client.action(#"{"session":"\ud800","action":"test:ok"}"#), 400, "invalid_json")
            try expectProblem(try await client.action(#"{"session":"s","action":"test:ok","custom":{"n":1e999}}"#), 400, "invalid_json")
            let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
            try expectProblem(try await client.action(#"{"session":"s","action":"test:ok","custom":{"d":\#(deep)}}"#), 400, "invalid_json")
            var invalidUTF8 = Array(#"{"session":""#.utf8)
            invalidUTF8 += [0xC3, 0x28]
            invalidUTF8 += Array(#"","action":"test:ok"}"#.utf8)
            try expectProblem(
                try await client.send("POST", "/action", headers: [("Content-Type", "application/json")], body: invalidUTF8),
                400, "invalid_json")
        }
    }

    @Test("match: segment-aware root, exclude, pattern over the whole URI")
    func matching() async throws {
        try await withStandardHub { client, _, _ in
            #expect(try await client.view("hub:ex").status == 200)
            #expect(try await client.view("hub:ex:child").status == 200)
            #expect(try await client.view("hub:ex/child").status == 200)
            try expectProblem(try await client.view("hub:exwork"), 404, "feature_not_found")
            try expectProblem(try await client.view("hub:ex:legacy"), 404, "feature_not_found")
            #expect(try await client.view("hub:pat:42").status == 200)
            try expectProblem(try await client.view("hub:pat:42x"), 404, "feature_not_found")
        }
    }

    @Test("titles: the feature title, localized by Accept-Language, when content sets none")
    func localizedTitle() async throws {
        try await withStandardHub { client, _, _ in
            let english = try await client.view("hub:titled").json()
            #expect(english["title"]?.stringValue == "Home")
            let swedish = try await client.view("hub:titled", headers: [("Accept-Language", "sv-SE, sv;q=0.9, en;q=0.5")]).json()
            #expect(swedish["title"]?.stringValue == "Hem")
        }
    }

    @Test("remote: {uri} and {session} are substituted; configured headers are sent")
    func wholeURIAndSession() async throws {
        try await withStandardHub { client, upstream, _ in
            let response = try await client.view("hub:wholeuri:x?y=1")
            #expect(response.status == 200, "\(response)")
            let session = try #require(response.header("Hub-Session"))
            let hit = try #require(upstream.log.hits(path: "/echo").first)
            #expect(hit.target.contains("u=hub%3Awholeuri%3Ax%3Fy%3D1&"), "\(hit.target)")
            #expect(hit.queryValue("s") == SessionToken.identifier(of: session), "{session} is the session id, not the whole token")
            #expect(hit.header("X-Api-Key") == "k1")
        }
    }

    @Test("a timed-out remote operation flows on as previousError: recover applies")
    func timeoutRecovered() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.view("hub:slow-recover")
            #expect(response.status == 200, "\(response)")
            #expect(try response.json().bodyIDs == ["offline"])
        }
    }

    @Test("independent remote operations fetch at the same time, results applied in chain order")
    func overlappingFetches() async throws {
        try await withStandardHub { client, upstream, _ in
            let response = try await client.view("hub:overlap")
            #expect(response.status == 200, "\(response)")
            #expect(try response.json().bodyIDs == ["overlap-0", "overlap-1"], "both fetches were in flight together")
            #expect(upstream.log.count(path: "/overlap") == 2)
        }
    }

    @Test("remote: an upstream 404 is a 502")
    func upstreamNotFound() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(try await client.view("hub:upstream404"), 502, "upstream_error")
        }
    }

    @Test("remote: retries re-fetch an idempotent GET after a 5xx")
    func retries() async throws {
        try await withStandardHub { client, upstream, _ in
            let response = try await client.view("hub:flaky")
            #expect(response.status == 200, "\(response)")
            #expect(try response.json().bodyIDs == ["steady"])
            #expect(upstream.log.count(path: "/flaky") == 2)
        }
    }

    @Test("remote: Cache-Control max-age is honoured; a reload always re-fetches an uncacheable upstream")
    func upstreamCaching() async throws {
        try await withStandardHub { client, upstream, _ in
            #expect(try await client.view("hub:cached").status == 200)
            #expect(try await client.view("hub:cached").status == 200)
            #expect(upstream.log.count(path: "/cached") == 1, "fresh for 60 s: one upstream request")

            let opened = try await client.view("hub:remote")
            let session = try #require(opened.header("Hub-Session"))
            #expect(try await client.session(session).status == 200)
            #expect(upstream.log.count(path: "/object") == 2, "reload always re-runs the remote operation")
        }
    }

    @Test("a full reload (hub:reload) resets the page index")
    func reloadResetsPages() async throws {
        try await withStandardHub { client, upstream, _ in
            let session = try #require(try await client.view("hub:pages").header("Hub-Session"))
            _ = try await client.post("/view/next-page", #"{"session":"\#(session)"}"#)
            let reloaded = try await client.action(#"{"session":"\#(session)","action":"hub:reload"}"#)
            #expect(reloaded.status == 200, "\(reloaded)")
            #expect(try reloaded.json()["view"]?.bodyIDs == ["p0"])
            let next = try await client.post("/view/next-page", #"{"session":"\#(session)"}"#)
            #expect(try next.json().bodyIDs == ["p0", "p1"])
            #expect(upstream.log.hits(path: "/page").compactMap { $0.queryValue("n") } == ["0", "1", "0", "1"])
        }
    }

    @Test("a remote action slower than its timeoutMs is 504")
    func remoteActionTimeout() async throws {
        try await withStandardHub { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            try expectProblem(try await client.action(#"{"session":"\#(session)","action":"slowremote:go"}"#), 504)
        }
    }

    @Test("GET /view?session=S&uri=U with an unknown session opens a new one for U")
    func sessionFallsBackToURI() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.get("/view?session=gone&uri=hub:static")
            #expect(response.status == 200, "\(response)")
            #expect(response.header("Hub-Session") != nil && response.header("Hub-Session") != "gone")
        }
    }

    @Test("a weak (gzip) ETag also answers 304")
    func weakETag() async throws {
        try await withStandardHub { client, _, _ in
            let first = try await client.view("hub:big", headers: [("Accept-Encoding", "gzip")])
            let session = try #require(first.header("Hub-Session"))
            let etag = try #require(first.header("ETag"))
            let again = try await client.session(session, headers: [("Accept-Encoding", "gzip"), ("If-None-Match", etag)])
            #expect(again.status == 304, "\(again)")
        }
    }

    /// Swift operations that fail or overrun the operation deadline.
    struct Sleeper: ContentOperation {
        var name: String { "sleeper" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            try await Task.sleep(for: .seconds(30))  // far past the 0.2 s deadline, however loaded the machine
        }
    }

    struct Thrower: ContentOperation {
        struct Failure: Error {}
        var name: String { "thrower" }
        /// Runs inline: a loaded machine cannot make it miss the 0.2 s deadline too.
        var completesSynchronously: Bool { true }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws { throw Failure() }
    }

    @Test("an operation past timeouts.operationSeconds is 504 operation_timeout; a throwing one is 500")
    func operationDeadlineAndFailure() async throws {
        var config = TestConfig(
            server: #"{ "host": "127.0.0.1", "port": 0, "timeouts": { "operationSeconds": 0.2, "drainSeconds": 1 }, "log": { "level": "error" } }"#)
        config.feature("sleepy", #"{ "id": "sleepy", "title": "Sleepy", "match": { "root": "hub:sleepy" }, "operations": [ { "kind": "swift", "name": "sleeper" } ] }"#)
        config.feature("broken", #"{ "id": "broken", "title": "Broken", "match": { "root": "hub:broken" }, "operations": [ { "kind": "static", "json": { "body": [ { "id": "x" } ] } }, { "kind": "swift", "name": "thrower" } ] }"#)
        var extensions = SwiftExtensions()
        extensions.registerOperation("sleeper") { _ in Sleeper() }
        extensions.registerOperation("thrower") { _ in Thrower() }
        try await withHub(config, extensions: extensions) { client, _ in
            let slow = try expectProblem(try await client.view("hub:sleepy"), 504, "operation_timeout")
            #expect(slow["detail"]?.stringValue?.contains("sleeper") == true, "\(slow)")
            let broken = try expectProblem(try await client.view("hub:broken"), 500, "operation_failed")
            #expect(broken["detail"]?.stringValue?.contains("operation 1") == true, "\(broken)")
            #expect(broken["detail"]?.stringValue?.contains("thrower") == true, "\(broken)")
        }
    }
}
