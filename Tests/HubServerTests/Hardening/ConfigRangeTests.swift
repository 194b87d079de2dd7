import Foundation
import HubServer
import HubTestSupport
import Testing

/// Every duration and byte count in the config has a range: what `validate` accepts, `serve`
/// can run (a `drainSeconds` of 1e300 once passed validation and trapped the server).
@Suite("Hardening: config ranges")
struct ConfigRangeTests {
    static let outOfRange: [(server: String, path: String)] = [
        (#"{ "timeouts": { "drainSeconds": 1e300 } }"#, "$.timeouts.drainSeconds"),
        (#"{ "timeouts": { "headerSeconds": 1e19 } }"#, "$.timeouts.headerSeconds"),
        (#"{ "timeouts": { "idleSeconds": 0 } }"#, "$.timeouts.idleSeconds"),
        (#"{ "timeouts": { "operationSeconds": -1 } }"#, "$.timeouts.operationSeconds"),
        (#"{ "timeouts": { "bodySeconds": 7200 } }"#, "$.timeouts.bodySeconds"),
        (#"{ "timeouts": { "drainDelaySeconds": 301 } }"#, "$.timeouts.drainDelaySeconds"),
        (#"{ "timeouts": { "streamSeconds": -1 } }"#, "$.timeouts.streamSeconds"),
        (#"{ "sessions": { "idleSeconds": 1e300 } }"#, "$.sessions.idleSeconds"),
        (#"{ "limits": { "bodyBytes": 9223372036854775807 } }"#, "$.limits.bodyBytes"),
        (#"{ "caches": { "renderBytes": 0 } }"#, "$.caches.renderBytes"),
    ]

    @Test("out-of-range numbers are errors naming their path", arguments: 0..<outOfRange.count)
    func outOfRangeIsRefused(index: Int) throws {
        let (server, path) = Self.outOfRange[index]
        let directory = try TestConfig(server: server).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ConfigLoader(environment: [:]).load(directory: directory)
        }
        let issues = try #require(error).issues
        #expect(issues.contains { $0.file == "server.json" && $0.path == path }, "\(issues)")
    }

    @Test("a feature's reload.maxAgeSeconds has a range too")
    func maxAgeRange() throws {
        var config = TestConfig()
        config.feature("a", """
            { "id": "a", "title": "A", "match": { "root": "hub:a" }, "reload": { "maxAgeSeconds": 1e300 },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "x" } ] } } ] }
            """)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ConfigLoader(environment: [:]).load(directory: directory)
        }
        let issues = try #require(error).issues
        #expect(issues.contains { $0.path == "$.reload.maxAgeSeconds" }, "\(issues)")
    }

    @Test("the largest accepted values start a server")
    func largestValuesServe() async throws {
        let server = """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" },
              "timeouts": { "headerSeconds": 3600, "bodySeconds": 3600, "idleSeconds": 86400, "operationSeconds": 3600,
                            "drainSeconds": 1 },
              "sessions": { "idleSeconds": 2592000 } }
            """
        try await withHub(Hardening.config(server: server), extensions: Hardening.extensions()) { client, _ in
            let status = try await client.view("hub:static").status
            #expect(status == 200)
        }
    }

    @Test("HUB_LOG_FORMAT overrides log.format; another value is an error naming the variable")
    func logFormatEnvironment() throws {
        let directory = try TestConfig(server: #"{ "log": { "format": "json" } }"#).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let text = try ConfigLoader(environment: ["HUB_LOG_FORMAT": "text"]).load(directory: directory)
        #expect(text.settings.logFormat == .text)
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ConfigLoader(environment: ["HUB_LOG_FORMAT": "yaml"]).load(directory: directory)
        }
        let issues = try #require(error).issues
        #expect(issues.contains { $0.file == "HUB_LOG_FORMAT" || $0.message.contains("HUB_LOG_FORMAT") || $0.path == "HUB_LOG_FORMAT" }, "\(issues)")
    }
}
