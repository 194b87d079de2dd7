import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Trusted sessions over real sockets: tokens are claims the server signed (forged, tampered,
/// foreign-key, expired and revoked tokens are 404 and cost nothing), keys rotate, a restart
/// keeps its generated key, revocation is exact, and rebuilds cannot push used sessions out.
@Suite("Trusted sessions: signed tokens, keys, revocation")
struct TrustedSessionTests {
    /// A remote feature (not memoized: its sessions are stored), a memoized static one, and
    /// limits high enough that only the test's own limit matters.
    static func config(upstream: String, server: String? = nil) -> TestConfig {
        var config = TestConfig(server: server ?? """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "limits": { "sessionsPerClient": { "perSecond": 100000, "burst": 100000 } } }
            """)
        config.feature("remote", """
            { "id": "remote", "title": "Remote", "match": { "uri": "hub:remote" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/item" } ] }
            """)
        config.feature("static", """
            { "id": "static", "title": "Static", "match": { "root": "hub:static" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "a", "text": { "title": "A" } } ] } } ] }
            """)
        return config
    }

    static func upstream() throws -> TestUpstream {
        try TestUpstream { router in
            router.add(.get, "/item") { _, _ in TestUpstream.json(#"{"body":[{"id":"r1","text":{"title":"R1"}}]}"#) }
        }
    }

    static let keyA = SessionKeys.encode(SessionKeys.randomKey())
    static let keyB = SessionKeys.encode(SessionKeys.randomKey())

    static func environment(keys: String? = nil, dataDirectory: String? = nil) -> [String: String] {
        var environment = testEnvironment
        if let keys { environment["HUB_SESSION_KEYS"] = keys }
        if let dataDirectory { environment["HUB_DATA_DIR"] = dataDirectory }
        return environment
    }

    /// A data directory path of its own (created by the hub), under the temporary directory.
    static func freshDataDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hub-trusted-\(UUID().uuidString)").path
    }

    /// `text` with the character at `index` replaced by another of the base64url alphabet.
    static func tampered(_ text: String, at index: Int) -> String {
        var bytes = Array(text.utf8)
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("forged, tampered, foreign-key tokens are 404 everywhere: nothing stored, no upstream reached, counted")
    func forgedTokensCostNothing() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        // A data directory of its own: the revocations other tests recorded in the shared one are loaded at start.
        let data = Self.freshDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try await withHub(
            Self.config(upstream: upstream.base), environment: Self.environment(keys: Self.keyA, dataDirectory: data), transport: .socket
        ) { client, _ in
            let token = try #require(try await client.view("hub:remote").header("Hub-Session"))
            let uriStart = token.utf8.count - 43 - 1 - 10 - 2  // inside the URI part, before the time and MAC
            let foreign = SessionToken(
                id: SessionIdentifier.make(), viewURI: "hub:remote", issuedAt: EngineDefaults.systemWallClock(),
                keys: try SessionKeys(texts: [Self.keyB])).encoded
            let forged = [
                SessionIdentifier.make() + token.dropFirst(22),  // a random id with a valid URI part
                Self.tampered(token, at: 3),  // one character of the id
                Self.tampered(token, at: uriStart),  // one character of the URI
                Self.tampered(token, at: token.utf8.count - 5),  // one character of the MAC
                foreign,  // another server's key
                "AAAAAAAAAAAAAAAAAAAAAA.saHViOnRvZG8",  // the review's unsigned form
            ]
            let created = try await client.metric("hub_sessions_created_total")
            let hits = upstream.log.hits(path: "/item").count
            for text in forged {
                try expectProblem(try await client.session(text), 404, "session_not_found")
                try expectProblem(try await client.action(#"{"session":"\#(text)","action":"x:y"}"#), 404, "session_not_found")
                try expectProblem(try await client.post("/view/next-page", #"{"session":"\#(text)"}"#), 404, "session_not_found")
                try expectProblem(try await client.get("/view/events?session=\(client.encode(text))"), 404, "session_not_found")
                #expect(try await client.send("HEAD", "/view?session=\(client.encode(text))").status == 404)
                try expectProblem(try await client.delete("/view?session=\(client.encode(text))"), 404, "session_not_found")
            }
            #expect(try await client.metric("hub_sessions_created_total") == created, "no session stored")
            #expect(upstream.log.hits(path: "/item").count == hits, "no upstream reached")
            #expect(try await client.get("/health").json()["sessions"]?.intValue == 1)
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="signature"}"#) ?? 0 >= 4 * 6)
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="malformed"}"#) ?? 0 >= 6)
            #expect(try await client.metric("hub_session_tokens_revoked") == 0, "a forged token is never recorded")
            // The real token still works.
            #expect(try await client.session(token).status == 200)
        }
    }

    @Test("keys rotate: a token of key A works where A is listed (B,A) and not where it is not (B)")
    func keyRotation() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let directory = try Self.config(upstream: upstream.base).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let token = try await withHub(directory: directory, environment: Self.environment(keys: Self.keyA), transport: .socket) { client, _ in
            try #require(try await client.view("hub:remote").header("Hub-Session"))
        }
        try await withHub(directory: directory, environment: Self.environment(keys: "\(Self.keyB),\(Self.keyA)"), transport: .socket) { client, _ in
            let rebuilt = try await client.session(token)
            #expect(rebuilt.status == 200, "\(rebuilt)")
            #expect(rebuilt.header("Hub-Session") == token)
            #expect(try await client.metric(#"hub_sessions_rebuilt_total{reason="unknown"}"#) == 1)
            // New tokens are signed with the first key: a server that lists only A refuses them.
            let fresh = try #require(try await client.view("hub:remote").header("Hub-Session"))
            #expect(SessionToken.verify(fresh, keys: try SessionKeys(texts: [Self.keyB]), now: EngineDefaults.systemWallClock(), maxAge: 60).map(\.id) == .success(String(fresh.prefix(22))))
        }
        try await withHub(directory: directory, environment: Self.environment(keys: Self.keyB), transport: .socket) { client, _ in
            try expectProblem(try await client.session(token), 404, "session_not_found")
            #expect(try await client.metric("hub_sessions_created_total") == 0)
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="signature"}"#) == 1)
        }
    }

    @Test("without keys a server generates one in its data directory: a restart there accepts its tokens, another directory does not")
    func generatedKeySurvivesRestart() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let directory = try Self.config(upstream: upstream.base).write()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("hub-data-\(UUID().uuidString)").path
        let other = data + "-other"
        defer {
            for path in [directory, data, other] { try? FileManager.default.removeItem(atPath: path) }
        }
        let token = try await withHub(directory: directory, environment: Self.environment(dataDirectory: data), transport: .socket) { client, _ in
            try #require(try await client.view("hub:remote").header("Hub-Session"))
        }
        let keyFile = data + "/session-keys"
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "the key file is the server's alone")
        try await withHub(directory: directory, environment: Self.environment(dataDirectory: data), transport: .socket) { client, _ async throws in
            #expect(try await client.session(token).status == 200, "the same server, restarted, accepts its old token")
        }
        try await withHub(directory: directory, environment: Self.environment(dataDirectory: other), transport: .socket) { client, _ in
            try expectProblem(try await client.session(token), 404, "session_not_found")
        }
    }

    @Test("an expired token is 404 and counted; a token within its age rebuilds")
    func expiredToken() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let keys = try SessionKeys(texts: [Self.keyA])
        let now = EngineDefaults.systemWallClock()
        try await withHub(Self.config(upstream: upstream.base), environment: Self.environment(keys: Self.keyA), transport: .socket) { client, _ in
            let old = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:remote", issuedAt: now - 8 * 86_400, keys: keys)
            try expectProblem(try await client.session(old.encoded), 404, "session_not_found")
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="expired"}"#) == 1)
            let recent = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:remote", issuedAt: now - 60, keys: keys)
            #expect(try await client.session(recent.encoded).status == 200)
        }
    }

    @Test("DELETE revokes exactly: the token stays 404 after 1,100 other revocations")
    func revocationIsExact() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        // A data directory of its own: the revocations other tests recorded in the shared one are loaded at start.
        let data = Self.freshDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try await withHub(
            Self.config(upstream: upstream.base), environment: Self.environment(keys: Self.keyA, dataDirectory: data), transport: .socket
        ) { client, _ in
            let token = try #require(try await client.view("hub:remote").header("Hub-Session"))
            #expect(try await client.delete("/view?session=\(client.encode(token))").status == 204)
            try expectProblem(try await client.session(token), 404, "session_not_found")
            let keys = try SessionKeys(texts: [Self.keyA])
            let now = EngineDefaults.systemWallClock()
            for _ in 0..<1100 {
                let other = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:static", issuedAt: now, keys: keys)
                #expect(try await client.delete("/view?session=\(client.encode(other.encoded))").status == 204)
            }
            try expectProblem(try await client.session(token), 404, "session_not_found")
            try expectProblem(try await client.action(#"{"session":"\#(token)","action":"x:y"}"#), 404, "session_not_found")
            #expect(try await client.metric("hub_session_tokens_revoked") == 1101)
            #expect(try await client.metric(#"hub_session_tokens_rejected_total{reason="revoked"}"#) == 3)
        }
    }

    @Test("open-and-use-once pairs never push out a used session (sessions.max 40, 400 pairs, no rebuild)")
    func openAndUseOnceFlood() async throws {
        let server = """
            { "host": "127.0.0.1", "port": 0, "sessions": { "max": 40 }, "timeouts": { "drainSeconds": 1 },
              "log": { "level": "error" }, "limits": { "sessionsPerClient": { "perSecond": 100000, "burst": 100000 } } }
            """
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        try await withHub(Self.config(upstream: upstream.base, server: server), transport: .socket) { client, app in
            _ = try await client.view("hub:static")  // the first view of the feature runs it (memo miss)
            let used = try #require(try await client.view("hub:static").header("Hub-Session"))  // lazy: a memo hit
            #expect(try await client.session(used).status == 200)  // first use: stored
            #expect(try await client.session(used).status == 200)  // second use: protected
            for _ in 0..<400 {
                let once = try #require(try await client.view("hub:static").header("Hub-Session"))
                #expect(try await client.session(once).status == 200)
            }
            #expect(app.engine.session(for: used) != nil, "still held")
            #expect(try await client.metric(#"hub_sessions_ended_total{reason="evicted"}"#) ?? 0 >= 350)
            for reason in ["evicted", "expired", "unknown"] {
                #expect(try await client.metric(#"hub_sessions_rebuilt_total{reason="\#(reason)"}"#) == 0)
            }
        }
    }

    @Test("HEAD of a token this process does not hold answers without storing a session")
    func headStoresNothing() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        try await withHub(Self.config(upstream: upstream.base), transport: .socket) { client, _ in
            _ = try await client.view("hub:static")
            let lazy = try #require(try await client.view("hub:static").header("Hub-Session"))
            let created = try #require(try await client.metric("hub_sessions_created_total"))
            #expect(try await client.send("HEAD", "/view?session=\(client.encode(lazy))").status == 200)
            #expect(try await client.metric("hub_sessions_created_total") == created)
            #expect(try await client.session(lazy).status == 200)
            #expect(try await client.metric("hub_sessions_created_total") == created + 1)
        }
    }

    @Test("every response says X-Content-Type-Options: nosniff (views, actions, problems, operational endpoints)")
    func noSniff() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        try await withHub(Self.config(upstream: upstream.base), transport: .socket) { client, _ in
            let view = try await client.view("hub:remote")
            let token = try #require(view.header("Hub-Session"))
            let responses = [
                view, try await client.action(#"{"session":"\#(token)","component":"r1"}"#),
                try await client.view("hub:nope"), try await client.get("/nope"), try await client.get("/health"),
                try await client.get("/metrics"),
            ]
            for response in responses {
                #expect(response.header("X-Content-Type-Options") == "nosniff", "\(response.status)")
            }
        }
    }
}
