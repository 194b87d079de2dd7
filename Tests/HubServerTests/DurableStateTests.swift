import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a user did lasts: the demo's todo list is kept in the state store (SQLite by default),
/// so it survives `kill -9`; values are bounded; the store's state is shown on `/ready`.
@Suite("Durable state", .serialized)
struct DurableStateTests {
    @Test("SQLite default: three items added, the server killed with SIGKILL and started again: the token's view is the same body")
    func killedServerKeepsTodoItems() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-state-kill-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let environment = ["HUB_DATA_DIR": dataDirectory, "HUB_CONFIG_WATCH": "0"]
        let arguments = ["--config", ProcessSignalTests.configDirectory.path]

        let (first, firstOutput) = try ProcessSignalTests.serve(arguments, environment: environment)
        defer { first.terminate() }
        let firstClient = HubClient(port: try await Self.port(of: firstOutput))
        let token = try #require(try await firstClient.view("hub:todo").header("Hub-Session"))
        for title in ["one", "two", "three"] {
            let added = try await firstClient.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"\#(title)"}}"#)
            #expect(try added.json()["performed"]?.boolValue == true)
        }
        let before = try await firstClient.session(token)
        #expect(before.status == 200)
        first.signal(SIGKILL)
        _ = try await blocking { first.waitUntilExit() }

        let (second, secondOutput) = try ProcessSignalTests.serve(arguments, environment: environment)
        defer { second.terminate() }
        let after = try await HubClient(port: try await Self.port(of: secondOutput)).session(token)
        #expect(after.status == 200)
        #expect(after.body == before.body, "the same view, rebuilt from the token and the stored list")
        let titles = try after.json().bodyIDs.compactMap { try after.json().component($0)?["text"]?["title"]?.stringValue }
        #expect(Array(titles.suffix(3)) == ["one", "two", "three"])
    }

    @Test("a value over state.maxValueBytes is 413 state_too_large and changes nothing")
    func oversizedValueRefused() async throws {
        var config = Hardening.config(server: """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "state": { "backend": "memory", "maxValueBytes": 1024 } }
            """)
        config["actions.json"] = #"{ "todo": { "kind": "swift", "name": "todo" }, "blob": { "kind": "swift", "name": "blob" } }"#
        var extensions = Hardening.extensions()
        extensions.registerActionFactory("blob", ClosureActionFactory([
            "put": { context in
                let size = context.customData?["size"]?.intValue ?? 0
                try await context.state.update("blob") { value in
                    value = .string(String(repeating: "x", count: size))
                    return true
                }
                return .performed
            },
        ]))
        try await withHub(config, extensions: extensions) { client, app in
            let token = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let id = String(try #require(token.split(separator: ".").first))
            let small = try await client.action(#"{"session":"\#(token)","action":"blob:put","custom":{"size":100}}"#)
            #expect(small.status == 200)
            let big = try await client.action(#"{"session":"\#(token)","action":"blob:put","custom":{"size":5000}}"#)
            #expect(big.status == 413)
            #expect(try big.json()["code"]?.stringValue == "state_too_large")
            #expect(big.header("Content-Type") == "application/problem+json")
            let stored = try #require(try await app.engine.stateStore.read(try StateKey("blob", in: .session, sessionID: id), now: 0))
            #expect(stored.version == 1 && stored.bytes.count == 102, "the 100-byte value stays")
            #expect(try await client.metric(#"hub_state_operations_total{backend="memory",op="write",result="ok"}"#) == 1)
        }
    }

    @Test("/ready shows the store and its health without failing for it")
    func readyShowsTheStore() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions()) { client, _ in
            let ready = try await client.get("/ready")
            #expect(ready.status == 200)
            #expect(try ready.json()["state"]?["backend"]?.stringValue == "sqlite")
            #expect(try ready.json()["state"]?["available"]?.boolValue == true)
        }
    }

    @Test("state config errors name their key: an unknown backend, postgres without a URL, a bad HUB_STATE_BACKEND")
    func stateConfigErrors() throws {
        func issues(_ server: String, environment: [String: String] = testEnvironment) throws -> [String] {
            let directory = try TestConfig(server: server).write()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            do {
                _ = try HubApplication.load(directory: directory, environment: environment)
                return []
            } catch let error as ConfigurationError {
                return error.issues.map(\.path)
            }
        }
        #expect(try issues(#"{ "state": { "backend": "redis" } }"#).contains("$.state.backend"))
        #expect(try issues(#"{ "state": { "backend": "postgres" } }"#).contains("$.state.url"))
        #expect(try issues(#"{ "state": { "maxValueBytes": 0 } }"#).contains("$.state.maxValueBytes"))
        #expect(try issues(#"{ "state": { "maxSessionBytes": 0 } }"#).contains("$.state.maxSessionBytes"))
        #expect(try issues(#"{ "state": { "maxSubjectBytes": 2147483648 } }"#).contains("$.state.maxSubjectBytes"))
        #expect(try issues(#"{ "state": { "maxSessionBytes": 1, "maxSubjectBytes": 1073741824 } }"#).isEmpty)
        var environment = testEnvironment
        environment["HUB_STATE_BACKEND"] = "floppy"
        #expect(try issues("{}", environment: environment).contains("HUB_STATE_BACKEND"))
        environment["HUB_STATE_BACKEND"] = "postgres"
        environment["HUB_STATE_URL"] = "postgresql://hub@127.0.0.1:1/hub"
        #expect(try issues("{}", environment: environment).isEmpty, "the URL from the environment is enough (connects lazily)")
    }

    /// The port from the server's "listening" log line.
    static func port(of output: ProcessSignalTests.LineReader) async throws -> Int {
        var port: Int?
        _ = await eventually { port = output.all.lazy.compactMap(ProcessSignalTests.listeningPort).first; return port != nil || output.finished }
        return try #require(port, "no listening line: \(output.all.suffix(5))")
    }
}
