import Foundation
import HubDemo
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// What a PostgreSQL outage shows to clients and to operators: `/ready` and every problem body
/// say "the state store is unavailable" and nothing of the database (host, port, role, database,
/// libpq's message); the driver's text goes to the log at error level. A replica on the
/// `postgres` backend with a generated session key warns at start, and `/ready` names where its
/// keys came from.
@Suite("State store outages and session keys: what clients see, what the log says")
struct StateDisclosureTests {
    /// A hub built with a logger whose lines the test reads, on `environment` over the test
    /// environment; in memory (nothing here is about the transport).
    static func withLoggedHub(
        _ config: TestConfig, environment: [String: String], _ body: (HubClient, Locked<[String]>) async throws -> Void
    ) async throws {
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .debug, format: .json) { line in lines.withLock { $0.append(line) } }
        let loader = ConfigLoader(environment: testEnvironment.merging(environment) { $1 })
        let app = try HubApplication(configuration: try loader.load(directory: directory), extensions: Hardening.extensions(), logger: logger)
        do {
            try await body(HubClient(.memory(app)), lines)
            await app.shutdown()
        } catch {
            await app.shutdown()
            throw error
        }
    }

    @Test("PostgreSQL refusing connections: /ready and the 503 bodies of a view and an action name no host, port, role, database nor libpq's message; the log does")
    func outageShowsNoDriverText() async throws {
        let refusing = try RefusingPort()
        let port = String(refusing.port)
        let environment = [
            "HUB_STATE_BACKEND": "postgres",
            "HUB_STATE_URL": "postgresql://hubsecretrole@127.0.0.1:\(port)/hubsecretdb?connect_timeout=2",
        ]
        let secrets = ["127.0.0.1", port, "hubsecretrole", "hubsecretdb", "refused", "connection to server", "postgresql://"]
        try await Self.withLoggedHub(Hardening.config(), environment: environment) { client, lines in
            let view = try await client.view("hub:todo")
            let viewProblem = try expectProblem(view, 503, "state_unavailable")
            #expect(viewProblem["detail"]?.stringValue == "the state store is unavailable")
            #expect(view.header("Retry-After") == "1")
            let action = try await client.action(#"{"uri":"hub:todo","action":"todo:add","custom":{"title":"x"}}"#)
            let actionProblem = try expectProblem(action, 503, "state_unavailable")
            #expect(actionProblem["detail"]?.stringValue == "the state store is unavailable")
            let ready = try await client.get("/ready")
            #expect(ready.status == 200)
            let state = try ready.json()["state"]
            #expect(state?["available"]?.boolValue == false)
            #expect(state?["detail"]?.stringValue == "the state store is unavailable")
            for (name, response) in [("view", view), ("action", action), ("ready", ready)] {
                for secret in secrets {
                    #expect(!response.text.lowercased().contains(secret.lowercased()), "\(name) shows \(secret): \(response.text)")
                }
            }
            // The way around: an operator still learns why, from the log (error level).
            let logged = lines.withLock { $0 }.filter { $0.contains(#""msg":"state store unavailable""#) }
            #expect(logged.first?.contains(#""level":"error""#) == true, "\(lines.withLock { $0 })")
            #expect(logged.first?.contains(port) == true && logged.first?.contains(#""backend":"postgres""#) == true, "\(logged)")
        }
    }

    @Test("postgres with a generated key: a warning at start saying how to share keys, and /ready says generated")
    func generatedKeyOnPostgresWarns() async throws {
        let refusing = try RefusingPort()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("hub-keys-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let environment = [
            "HUB_STATE_BACKEND": "postgres", "HUB_STATE_URL": "postgresql://postgres@127.0.0.1:\(refusing.port)/postgres",
            "HUB_DATA_DIR": data,
        ]
        try await Self.withLoggedHub(Hardening.config(), environment: environment) { client, lines in
            let warning = lines.withLock { $0 }.first { $0.contains(#""msg":"session keys""#) }
            #expect(warning?.contains(#""level":"warning""#) == true, "\(lines.withLock { $0 })")
            #expect(warning?.contains("refuses the tokens the others signed") == true)
            #expect(warning?.contains("HUB_SESSION_KEYS") == true && warning?.contains("sessions.keyFile") == true)
            let ready = try await client.get("/ready").json()
            #expect(ready["sessionKeys"]?.stringValue == "generated")
        }
    }

    @Test("no warning where keys are configured (HUB_SESSION_KEYS, sessions.keyFile) or the store is not shared (sqlite); /ready names each source")
    func configuredKeysDoNotWarn() async throws {
        let refusing = try RefusingPort()
        let postgres = ["HUB_STATE_BACKEND": "postgres", "HUB_STATE_URL": "postgresql://postgres@127.0.0.1:\(refusing.port)/postgres"]
        let key = SessionKeys.encode(SessionKeys.randomKey())
        var withFile = Hardening.config(server: """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "sessions": { "keyFile": "keys.txt" } }
            """)
        withFile["keys.txt"] = "# the signing key\n\(key)\n"
        let cases: [(TestConfig, [String: String], String)] = [
            (Hardening.config(), postgres.merging(["HUB_SESSION_KEYS": key]) { $1 }, "environment"),
            (withFile, postgres, "file"),
            (Hardening.config(), [:], "generated"),
        ]
        for (config, environment, source) in cases {
            try await Self.withLoggedHub(config, environment: environment) { client, lines in
                let keyLines = lines.withLock { $0 }.filter { $0.contains(#""msg":"session keys""#) }
                #expect(keyLines.count == 1 && keyLines.allSatisfy { $0.contains(#""level":"debug""#) }, "\(source): \(keyLines)")
                let ready = try await client.get("/ready").json()
                #expect(ready["sessionKeys"]?.stringValue == source)
            }
        }
    }
}
