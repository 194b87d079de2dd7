import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Explain mode: `GET /view?explain=1` with `"debug": {"explain": true}` (docs/API.md), over a
/// real socket.
@Suite("Explain mode")
struct ExplainModeTests {
    static let explainServer = """
        { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
          "debug": { "explain": true } }
        """

    static func config(upstream: String, server: String = explainServer) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("chain", """
            { "id": "chain", "title": "Chain", "match": { "root": "hub:chain" },
              "operations": [
                { "kind": "static", "json": { "body": [
                  { "id": "a", "text": { "title": "A" } }, { "id": "b", "text": { "title": "B" } } ] } },
                { "kind": "patch", "set": { "a": { "text": { "title": "A patched" } } }, "remove": ["b"] },
                { "kind": "remote", "url": "\(upstream)/object" } ] }
            """)
        return config
    }

    static func withChainHub(
        server: String = explainServer, _ body: (HubClient, TestUpstream) async throws -> Void
    ) async throws {
        let upstream = try makeStandardUpstream()
        defer { upstream.stop() }
        try await withHub(Self.config(upstream: upstream.base, server: server), transport: .socket) { client, _ in
            try await body(client, upstream)
        }
    }

    static func strings(_ value: JSONValue?) -> [String] {
        value?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test("explain=1 lists a static + patch + remote chain in order, with what each operation did")
    func explainsTheChain() async throws {
        try await Self.withChainHub { client, _ in
            let plain = try await client.view("hub:chain")
            #expect(plain.status == 200, "\(plain)")
            let etag = try #require(plain.header("ETag"))
            let session = try #require(plain.header("Hub-Session"))

            let explained = try await client.get("/view?uri=hub%3Achain&explain=1")
            #expect(explained.status == 200, "\(explained)")
            #expect(explained.header("Cache-Control") == "no-store")
            #expect(explained.header("ETag") == nil)
            let body = try explained.json()
            // The view's own fields are there, exactly as the plain answer's.
            var viewOnly = try #require(body.objectValue)
            viewOnly["explain"] = nil
            #expect(JSONValue.object(viewOnly) == (try plain.json()))
            let operations = try #require(body["explain"]?["operations"]?.arrayValue)
            #expect(operations.map { $0["kind"]?.stringValue } == ["static", "patch", "remote"])
            #expect(operations.map { $0["name"]?.stringValue } == ["static", "patch", "remote"])
            #expect(Self.strings(operations[0]["created"]) == ["a", "b"])
            #expect(Self.strings(operations[1]["modified"]) == ["a"])
            #expect(Self.strings(operations[1]["removed"]) == ["b"])
            #expect(Self.strings(operations[1]["created"]).isEmpty)
            #expect(Self.strings(operations[2]["created"]) == ["r1"])
            #expect(Self.strings(operations[2]["modified"]).isEmpty)
            for operation in operations {
                #expect(["ran", "memo"].contains(operation["outcome"]?.stringValue ?? ""), "\(operation)")
                #expect(operation["durationMs"] != nil)
                #expect(operation["moved"]?.arrayValue != nil)
            }

            // With a session: the session's latest run.
            let bySession = try await client.get("/view?session=\(client.encode(session))&explain=1")
            #expect(bySession.status == 200, "\(bySession)")
            #expect(bySession.header("Hub-Session") != nil)
            let sessionOperations = try #require(try bySession.json()["explain"]?["operations"]?.arrayValue)
            #expect(Self.strings(sessionOperations[1]["modified"]) == ["a"])

            // The plain view is unchanged: the same bytes and ETag after explain requests.
            let after = try await client.view("hub:chain")
            #expect(after.header("ETag") == etag)
            #expect(after.body == plain.body)
            let revalidated = try await client.view("hub:chain", headers: [("If-None-Match", etag)])
            #expect(revalidated.status == 304)
            #expect(try await client.session(session).header("ETag") == etag)
        }
    }

    @Test("a failed operation and the one that handles its error are named")
    func outcomes() async throws {
        let upstream = try makeStandardUpstream()
        defer { upstream.stop() }
        var config = TestConfig(server: Self.explainServer)
        config.feature("recovering", """
            { "id": "recovering", "title": "Recovering", "match": { "root": "hub:recovering" },
              "operations": [
                { "kind": "static", "json": { "body": [ { "id": "a" } ] } },
                { "kind": "recover", "json": { "body": [ { "id": "never" } ] } },
                { "kind": "remote", "url": "\(upstream.base)/status500", "optional": true },
                { "kind": "recover", "json": { "body": [ { "id": "sorry", "text": { "title": "Try later" } } ] } } ] }
            """)
        try await withHub(config, transport: .socket) { client, _ async throws in
            let explained = try await client.get("/view?uri=hub%3Arecovering&explain=1")
            #expect(explained.status == 200, "\(explained)")
            let operations = try #require(try explained.json()["explain"]?["operations"]?.arrayValue)
            #expect(operations.map { $0["outcome"]?.stringValue } == ["ran", "skipped", "failed", "recovered"])
            #expect(Self.strings(operations[3]["created"]) == ["sorry"])
        }
    }

    @Test("off by default: explain=1 is 400 explain_disabled; explain=0 is the plain view; other values are 400")
    func offByDefault() async throws {
        try await Self.withChainHub(server: TestConfig.defaultServer) { client, _ in
            try expectProblem(try await client.get("/view?uri=hub%3Achain&explain=1"), 400, "explain_disabled")
            let plain = try await client.get("/view?uri=hub%3Achain&explain=0")
            #expect(plain.status == 200)
            #expect(try plain.json()["explain"] == nil)
            try expectProblem(try await client.get("/view?uri=hub%3Achain&explain=yes"), 400, "invalid_parameter")
        }
        try await Self.withChainHub { client, _ in
            // Exactly the four values docs/API.md names: 1 and true explain, 0 and false do not.
            for value in ["1", "true"] {
                let explained = try await client.get("/view?uri=hub%3Achain&explain=\(value)")
                #expect(explained.status == 200, "explain=\(value)")
                #expect(try explained.json()["explain"] != nil, "explain=\(value)")
            }
            for value in ["0", "false"] {
                let plain = try await client.get("/view?uri=hub%3Achain&explain=\(value)")
                #expect(plain.status == 200, "explain=\(value)")
                #expect(try plain.json()["explain"] == nil, "explain=\(value)")
            }
            for value in ["yes", "TRUE", "", "2"] {
                try expectProblem(try await client.get("/view?uri=hub%3Achain&explain=\(value)"), 400, "invalid_parameter")
            }
            try expectProblem(try await client.get("/view?uri=hub%3Achain&explain=1&explain=1"), 400, "duplicate_parameter")
            try expectProblem(try await client.get("/view?explain=1"), 400, "missing_uri")
            try expectProblem(try await client.get("/view?uri=hub%3Anowhere&explain=1"), 404, "feature_not_found")
            try expectProblem(try await client.get("/view?session=nope&explain=1"), 404, "session_not_found")
        }
    }
}
