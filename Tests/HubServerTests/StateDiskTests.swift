import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// State that cannot fill the disk, over HTTP: a session's values are bounded in total
/// (`state.maxSessionBytes`: 413 `state_too_large`, nothing changed), the data directory and its
/// files are private, the store's size is on `/metrics`, and the demo bounds a title in bytes too.
@Suite("State on disk", .serialized)
struct StateDiskTests {
    private static func freshDataDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hub-state-disk-\(UUID().uuidString)/data").path
    }

    private static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    private static func add(_ client: HubClient, _ session: String, _ title: String) async throws -> LoopbackResponse {
        let body: JSONValue = ["session": .string(session), "action": "todo:add", "custom": ["title": .string(title)]]
        return try await client.action(String(decoding: body.jsonBytes, as: UTF8.self))
    }

    @Test("an action whose write would pass state.maxSessionBytes answers 413 state_too_large and the view is unchanged; another session still writes")
    func sessionQuotaOverHTTP() async throws {
        let directory = Self.freshDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let config = Hardening.config(server: """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "state": { "backend": "sqlite", "maxSessionBytes": 1000 } }
            """)
        let environment = ["HUB_CONFIG_WATCH": "0", "HUB_DATA_DIR": directory]
        try await withHub(config, extensions: Hardening.extensions(), environment: environment) { client, _ in
            let session = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let title = String(repeating: "t", count: 190)
            var added = 0
            var refusal: LoopbackResponse?
            var before: LoopbackResponse?
            for _ in 0..<10 {
                before = try await client.session(session)
                let response = try await Self.add(client, session, title)
                if response.status != 200 {
                    refusal = response
                    break
                }
                #expect(try response.json()["performed"]?.boolValue == true)
                added += 1
            }
            #expect(added == 3, "the starter list and three 190-character titles fit in 1000 bytes, a fourth does not")
            let refused = try #require(refusal)
            #expect(refused.status == 413)
            #expect(try refused.json()["code"]?.stringValue == "state_too_large")
            #expect(try refused.json()["detail"]?.stringValue?.contains("state.maxSessionBytes is 1000") == true)
            #expect(refused.header("Content-Type") == "application/problem+json")
            let after = try await client.session(session)
            #expect(after.body == before?.body, "the view is unchanged")
            #expect(try after.json()["custom"]?["todoCount"]?.intValue == 3 + added)
            #expect(try await client.metric(#"hub_state_operations_total{backend="sqlite",op="write",result="too_large"}"#) == 1)
            // Deleting makes room again.
            let delete = try await client.action(#"{"session":"\#(session)","action":"todo:delete","custom":{"id":"todo-4"}}"#)
            #expect(try delete.json()["performed"]?.boolValue == true)
            #expect(try await Self.add(client, session, title).status == 200)
            // The quota is per session: another one writes as much.
            let other = try #require(try await client.view("hub:todo").header("Hub-Session"))
            #expect(try await Self.add(client, other, title).status == 200)
        }
    }

    @Test("a fresh data directory is created 0700 and the files in it 0600; hub_state_bytes shows the database and its log")
    func privateDataDirectory() async throws {
        let directory = Self.freshDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let environment = ["HUB_CONFIG_WATCH": "0", "HUB_DATA_DIR": directory]
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), environment: environment, transport: .socket) {
            client, _ in
            let session = try #require(try await client.view("hub:todo").header("Hub-Session"))
            #expect(try await Self.add(client, session, "written").status == 200)
            #expect(Self.mode(directory) == 0o700)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            for name in ["session-keys", "state.sqlite3", "state.sqlite3-shm", "state.sqlite3-wal"] {
                #expect(files.contains(name), "\(name) in \(files)")
            }
            for name in files {
                #expect(Self.mode(directory + "/" + name) == 0o600, "\(name)")
            }
            #expect(await eventually {
                ((try? await client.metric(#"hub_state_bytes{backend="sqlite"}"#)) ?? nil).map { $0 >= 4096 } == true
            })
        }
    }

    @Test("the demo refuses a title of 200 characters that is over 400 bytes, and one of 201 characters; it takes 200 ASCII characters and 400 bytes")
    func todoTitleBounds() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions()) { client, _ in
            let session = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let before = try await client.session(session)
            // 200 characters, each an "e" with two combining accents: 1,000 bytes.
            let marks = String(repeating: "e\u{301}\u{302}", count: 200)
            #expect(marks.count == 200 && marks.utf8.count == 1000)
            let refused = try await Self.add(client, session, marks)
            #expect(refused.status == 422)
            #expect(try refused.json()["code"]?.stringValue == "invalid_body")
            #expect(try refused.json()["detail"]?.stringValue?.contains("400 bytes") == true, "\(refused)")
            let long = try await Self.add(client, session, String(repeating: "a", count: 201))
            #expect(long.status == 422)
            #expect(try long.json()["detail"]?.stringValue?.contains("200 characters") == true, "\(long)")
            #expect(try await client.session(session).body == before.body, "nothing was added")

            let ascii = try await Self.add(client, session, String(repeating: "a", count: 200))
            #expect(ascii.status == 200)
            #expect(try ascii.json()["performed"]?.boolValue == true)
            // 200 precomposed "é": 200 characters in exactly 400 bytes.
            let accented = try await Self.add(client, session, String(repeating: "\u{E9}", count: 200))
            #expect(accented.status == 200)
            let titles = try await client.session(session).json()
            #expect(titles["custom"]?["todoCount"]?.intValue == 5)
        }
    }
}
