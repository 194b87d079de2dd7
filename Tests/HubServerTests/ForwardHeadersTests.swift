import Foundation
import HubHTTP
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// `forwardHeaders` on remote operations and remote action namespaces: the upstream gets the
/// caller's own value; such a chain is never shared between callers; the values reach no log
/// line, metric, token or problem; `validate` refuses what must not be forwarded.
@Suite("Forwarded caller headers")
struct ForwardHeadersTests {
    // Secrets no random token, trace id or request id can contain by chance (not hex, not
    // base64url: a hyphenated word with a dot would need to appear verbatim).
    static let alice = "Bearer alice.s3cr3t-4l1c3-Zq"
    static let bob = "Bearer bob.s3cr3t-b0bby-Zq"
    static let mallory = "Bearer mallory.s3cr3t-m4ll0ry-Zq"

    /// The user an `Authorization` value names (`Bearer NAME.secret`), or `anonymous`.
    static func user(_ authorization: String?) -> String {
        guard let authorization, let dot = authorization.firstIndex(of: ".") else { return "anonymous" }
        return String(authorization.dropFirst("Bearer ".count)[..<dot])
    }

    @Test("the upstream sees each caller's own Authorization; two callers never see each other's view, even when the upstream allows caching; the value is in no log line, metric, token or problem")
    func perCallerViews() async throws {
        let upstream = try TestUpstream { request in
            let user = Self.user(request.header("authorization"))
            if request.method == "POST" { return .respond(status: 204) }
            if user == "mallory" { return .respond(status: 500, body: Array("no".utf8)) }
            // A per-user upstream that still says the response may be cached for five minutes.
            return .respond(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "public, max-age=300")],
                body: Array(#"{ "title": "hello \#(user)", "body": [ { "id": "user", "text": { "title": "\#(user)" } } ] }"#.utf8))
        }
        defer { upstream.stop() }
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "debug", "access": { "mode": "all" } },
              "limits": { "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } } }
            """)
        config.feature("me", """
            { "id": "me", "title": "Me", "match": { "uri": "hub:me" },
              "operations": [ { "kind": "remote", "url": "\(upstream.url("/me"))", "forwardHeaders": ["Authorization"],
                                "staleIfErrorSeconds": 60 } ] }
            """)
        config["actions.json"] = """
            { "account": { "kind": "remote", "url": "\(upstream.url("/act/{action.name}"))", "forwardHeaders": ["Authorization"] } }
            """
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .debug, format: .json) { line in lines.withLock { $0.append(line) } }
        let app = try HubApplication(configuration: try ConfigLoader(environment: testEnvironment).load(directory: directory), logger: logger)
        let client = HubClient(.memory(app))
        do {
            var sent: [String?] = []
            var everything: [String] = []
            for _ in 0..<3 {
                for caller in [Self.alice, Self.bob, nil] {
                    let response = try await client.view("hub:me", headers: caller.map { [("Authorization", $0)] } ?? [])
                    #expect(response.status == 200, "\(response)")
                    #expect(try response.json()["title"]?.stringValue == "hello \(Self.user(caller))", "\(response)")
                    #expect(response.header("Hub-Stale") == nil)
                    sent.append(caller)
                    everything.append(response.headers.description + response.text)
                }
            }
            let received = upstream.log.all.filter { $0.path == "/me" }.map { $0.header("authorization") }
            #expect(received == sent, "one upstream request per view, each with the caller's own value")

            // A held session answers its own caller; an action forwards the action request's value.
            let held = try await client.view("hub:me", headers: [("Authorization", Self.alice)])
            let session = try #require(held.header("Hub-Session"))
            let again = try await client.session(session, headers: [("Authorization", Self.alice)])
            #expect(try again.json()["title"]?.stringValue == "hello alice")
            let action = try await client.action(
                #"{"session":"\#(session)","action":"account:refresh"}"#, headers: [("Authorization", Self.alice)])
            #expect(action.status == 200, "\(action)")
            #expect(upstream.log.all.last { $0.path == "/act/refresh" }?.header("authorization") == Self.alice)

            // A failing upstream for one caller: the problem names no credential.
            let failed = try await client.view("hub:me", headers: [("Authorization", Self.mallory)])
            try expectProblem(failed, 502)
            everything.append(failed.headers.description + failed.text + held.headers.description + action.text)

            let metrics = try await client.get("/metrics").text
            for secret in ["s3cr3t-4l1c3-Zq", "s3cr3t-b0bby-Zq", "s3cr3t-m4ll0ry-Zq", ".s3cr3t-"] {
                #expect(!metrics.contains(secret), "/metrics")
                #expect(!everything.contains { $0.contains(secret) }, "responses, tokens and problems")
                #expect(!lines.withLock { $0 }.contains { $0.contains(secret) }, "logs")
            }
            #expect(lines.withLock { $0 }.contains { $0.contains("remote operation failed") }, "the failure was logged")
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
    }

    @Test("Cookie is forwarded only when the config says forwardCookies")
    func cookieWhenAllowed() async throws {
        let upstream = try TestUpstream { request in
            .respond(status: 200, body: Array(#"{ "title": "\#(request.header("cookie") ?? "none")" }"#.utf8))
        }
        defer { upstream.stop() }
        var config = TestConfig()
        config.feature("c", """
            { "id": "c", "title": "C", "match": { "uri": "hub:c" },
              "operations": [ { "kind": "remote", "url": "\(upstream.url("/c"))", "forwardHeaders": ["Cookie"], "forwardCookies": true } ] }
            """)
        try await withHub(config) { client, _ async throws in
            let response = try await client.view("hub:c", headers: [("Cookie", "id=42")])
            #expect(try response.json()["title"]?.stringValue == "id=42")
        }
    }

    @Test("validate refuses forwarding Host, hop-by-hop headers, the session token, and Cookie without forwardCookies")
    func validateRefuses() throws {
        var config = TestConfig()
        for (index, name) in ["Host", "Connection", "Transfer-Encoding", "Hub-Session", "Cookie"].enumerated() {
            config.feature("f\(index)", """
                { "id": "f\(index)", "title": "F", "match": { "uri": "hub:f\(index)" },
                  "operations": [ { "kind": "remote", "url": "http://127.0.0.1:9/x", "forwardHeaders": ["Authorization", "\(name)"] } ] }
                """)
        }
        config["actions.json"] = #"{ "acct": { "kind": "remote", "url": "http://127.0.0.1:9/a", "forwardHeaders": ["host"] } }"#
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ConfigLoader(environment: [:]).load(directory: directory)
        }
        let issues = try #require(error).issues.filter { $0.severity == .error }
        for index in 0..<5 {
            #expect(issues.contains { $0.file == "features/f\(index).json" && $0.path == "$.operations[0].forwardHeaders[1]" }, "\(issues)")
        }
        #expect(issues.contains { $0.path == "$.operations[0].forwardHeaders[1]" && $0.message.contains("forwardCookies") })
        #expect(issues.contains { $0.file == "actions.json" && $0.path == "$.acct.forwardHeaders[0]" }, "\(issues)")
        #expect(!issues.contains { $0.message.contains("Authorization") }, "Authorization may be forwarded")
        #expect(issues.count == 6, "\(issues)")
    }
}
