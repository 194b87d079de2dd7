import Foundation
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// `server.json` `"cors"` through the whole middleware stack (in memory: the same bytes a socket
/// carries), and its validation.
@Suite("CORS")
struct CORSEndToEndTests {
    static let app = "http://127.0.0.1:5173"
    static let server = """
        { "host": "127.0.0.1", "port": 0,
          "cors": { "origins": ["\(app)"], "maxAgeSeconds": 120 },
          "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }
        """

    @Test("preflight to /action answers 204 with the method and headers; view, action and problems carry CORS headers")
    func allowedOrigin() async throws {
        try await withStandardHub(server: Self.server) { client, _, _ in
            let preflight = try await client.send("OPTIONS", "/action", headers: [
                ("Origin", Self.app), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "content-type,hub-client,hub-session"),
            ])
            #expect(preflight.status == 204, "\(preflight)")
            #expect(preflight.header("Access-Control-Allow-Origin") == Self.app)
            #expect(preflight.header("Access-Control-Allow-Methods") == "POST")
            // Hub-Session: the token as a request header, allowed by the default Hub-*.
            #expect(preflight.header("Access-Control-Allow-Headers") == "content-type, hub-client, hub-session")
            #expect(preflight.header("Access-Control-Max-Age") == "120")
            #expect(preflight.header("Vary")?.contains("Origin") == true)

            let view = try await client.view("hub:actions", headers: [("Origin", Self.app)])
            #expect(view.status == 200)
            #expect(view.header("Access-Control-Allow-Origin") == Self.app)
            let exposed = view.header("Access-Control-Expose-Headers") ?? ""
            for name in ["Hub-Session", "ETag", "Server-Timing", "Hub-Version", "X-Request-Id", "Retry-After", "Hub-Rebuilt"] {
                #expect(exposed.contains(name), "\(exposed)")
            }
            let session = try #require(view.header("Hub-Session"))

            let action = try await client.action(#"{"session":"\#(session)","action":"test:ok"}"#, headers: [("Origin", Self.app)])
            #expect(action.status == 200)
            #expect(action.header("Access-Control-Allow-Origin") == Self.app)

            let missing = try await client.action(#"{"session":"nope","action":"test:ok"}"#, headers: [("Origin", Self.app)])
            try expectProblem(missing, 404, "session_not_found")
            #expect(missing.header("Access-Control-Allow-Origin") == Self.app, "a script can read the problem")

            let metrics = try await client.get("/metrics")
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(text.contains(#"hub_http_requests_total{route="/action",method="OPTIONS",status="204"} 1"#), "\(text)")
        }
    }

    @Test("a disallowed origin gets no CORS headers, a 403 preflight, and counts in hub_cors_rejected_total")
    func disallowedOrigin() async throws {
        try await withStandardHub(server: Self.server) { client, _, _ in
            let other = "http://127.0.0.1:5174"
            let view = try await client.view("hub:static", headers: [("Origin", other)])
            #expect(view.status == 200)
            #expect(view.header("Access-Control-Allow-Origin") == nil)
            #expect(view.header("Access-Control-Expose-Headers") == nil)
            let preflight = try await client.send("OPTIONS", "/action", headers: [
                ("Origin", other), ("Access-Control-Request-Method", "POST"),
            ])
            try expectProblem(preflight, 403, "cors_origin_not_allowed")
            #expect(preflight.header("Access-Control-Allow-Origin") == nil)
            let text = String(decoding: try await client.get("/metrics").body, as: UTF8.self)
            #expect(text.contains(#"hub_cors_rejected_total{kind="request"} 1"#), "\(text)")
            #expect(text.contains(#"hub_cors_rejected_total{kind="preflight"} 1"#), "\(text)")
        }
    }

    @Test("off by default: no CORS headers, and OPTIONS stays 405")
    func offByDefault() async throws {
        try await withStandardHub { client, _, _ in
            let view = try await client.view("hub:static", headers: [("Origin", Self.app)])
            #expect(view.header("Access-Control-Allow-Origin") == nil)
            let preflight = try await client.send("OPTIONS", "/action", headers: [
                ("Origin", Self.app), ("Access-Control-Request-Method", "POST"),
            ])
            try expectProblem(preflight, 405, "method_not_allowed")
            let text = String(decoding: try await client.get("/metrics").body, as: UTF8.self)
            #expect(!text.contains("hub_cors_rejected_total"))
        }
    }

    @Test("cors and stream limits are validated", arguments: [
        (#""cors": { "origins": ["*"], "allowCredentials": true }"#, "$.cors", "allowCredentials"),
        (#""cors": { "origins": ["https://app.example.com/path"] }"#, "$.cors.origins[0]", "serialized origin"),
        (#""cors": { "origins": ["null"] }"#, "$.cors.origins[0]", "serialized origin"),
        (#""cors": { "origins": ["*", "https://a.example"] }"#, "$.cors", "cannot be listed with others"),
        (#""cors": { "allowCredentials": true }"#, "$.cors.origins", "is required"),
        (#""cors": { "origins": ["https://a.example"], "maxAgeSeconds": -1 }"#, "$.cors.maxAgeSeconds", "between"),
        (#""limits": { "connections": 100, "sseStreams": 101 }"#, "$.limits.sseStreams", "at most limits.connections"),
        (#""limits": { "sseListenersPerSession": 0 }"#, "$.limits.sseListenersPerSession", "between"),
    ])
    func validation(fragment: String, path: String, message: String) throws {
        let config = TestConfig(server: "{ \(fragment) }")
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) { _ = try ConfigLoader(environment: [:]).load(directory: directory) }
        let issues = try #require(error).issues.filter { $0.severity == .error }
        #expect(issues.contains { $0.file == "server.json" && $0.path == path && $0.message.contains(message) }, "\(issues)")
    }

    @Test("valid settings are read, and sseStreams follows a lower connection cap by default")
    func settingsRead() throws {
        var config = TestConfig(server: """
            { "cors": { "origins": ["HTTPS://App.Example.com:443"], "allowCredentials": true },
              "limits": { "connections": 100, "sseListenersPerSession": 3 } }
            """)
        config.feature("x", #"{ "id": "x", "title": "X", "match": { "root": "hub:x" }, "operations": [ { "kind": "static", "json": { "body": [] } } ] }"#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let settings = try ConfigLoader(environment: [:]).load(directory: directory).settings
        #expect(settings.cors?.origins == .exact(["https://app.example.com"]))
        #expect(settings.cors?.allowCredentials == true)
        #expect(settings.limits.sseListenersPerSession == 3)
        #expect(settings.limits.sseStreams == 100)
        #expect(ServerSettings().cors == nil)
        #expect(ServerSettings().limits.sseStreams == 5000 && ServerSettings().limits.sseListenersPerSession == 8)
    }
}
