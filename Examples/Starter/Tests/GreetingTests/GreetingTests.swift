import Foundation
import Greeting
import HubHTTP
import HubServer
import Testing

/// The app answered in memory (`HubApplication.respond(to:)`: the same middleware and router
/// as over a socket, no port), with this package's own Config/.
@Suite("Greeting")
struct GreetingTests {
    /// `Config/` of this package (this file is `Tests/GreetingTests/GreetingTests.swift`).
    static let config: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Config").path
    }()

    static func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.bytes ?? [])) as? [String: Any])
    }

    /// The body component `id` of a view JSON object.
    static func component(_ id: String, in view: [String: Any]) -> [String: Any]? {
        (view["body"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    static func title(of id: String, in view: [String: Any]) -> String? {
        (component(id, in: view)?["text"] as? [String: Any])?["title"] as? String
    }

    static func subtitle(of id: String, in view: [String: Any]) -> String? {
        (component(id, in: view)?["text"] as? [String: Any])?["subtitle"] as? String
    }

    /// Runs `body` with the app loaded from ``config`` (not listening), then shuts it down. The
    /// state lives in memory and the data directory (where a generated session key would go) is
    /// a temporary one, removed afterwards: a test writes nothing into the package.
    static func withApp(_ body: (HubApplication) async throws -> Void) async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("starter-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let app = try HubApplication.load(
            directory: config, extensions: StarterExtensions.make(),
            environment: ["HUB_CONFIG_WATCH": "0", "HUB_STATE_BACKEND": "memory", "HUB_DATA_DIR": data])
        do {
            try await body(app)
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
    }

    @Test("the hello view greets, and selecting Wave performs greeting:wave and counts it")
    func helloAndWave() async throws {
        try await Self.withApp { app in
            let view = await app.respond(to: HTTPRequest(method: .get, target: "/view?uri=starter:hello%3Fname%3DAda"))
            #expect(view.status == .ok)
            let first = try Self.json(view)
            #expect(Self.title(of: "greeting", in: first) == "Hello, Ada")
            #expect(Self.subtitle(of: "greeting", in: first) == "You waved 0 times")
            let session = try #require(view.headers["Hub-Session"])

            let headers: HTTPHeaders = ["Content-Type": "application/json", "Hub-Session": session]
            let action = await app.respond(
                to: HTTPRequest(method: .post, target: "/action", headers: headers, body: Array(#"{"component":"wave"}"#.utf8)))
            #expect(action.status == .ok)
            let answer = try Self.json(action)
            #expect(answer["performed"] as? Bool == true)
            let after = try #require(answer["view"] as? [String: Any])
            #expect(Self.subtitle(of: "greeting", in: after) == "You waved once")

            // The count is the session's state: asked again, the session shows it; another
            // session starts from zero.
            let again = await app.respond(to: HTTPRequest(method: .get, target: "/view", headers: ["Hub-Session": session]))
            #expect(Self.subtitle(of: "greeting", in: try Self.json(again)) == "You waved once")
            let other = await app.respond(to: HTTPRequest(method: .get, target: "/view?uri=starter:hello"))
            #expect(Self.subtitle(of: "greeting", in: try Self.json(other)) == "You waved 0 times")
        }
    }

    @Test("a URI no feature serves is a problem")
    func unknownView() async throws {
        try await Self.withApp { app in
            let response = await app.respond(to: HTTPRequest(method: .get, target: "/view?uri=starter:nope"))
            #expect(response.status == .notFound)
            let problem = try Self.json(response)
            #expect(problem["code"] as? String == "feature_not_found")
        }
    }
}
