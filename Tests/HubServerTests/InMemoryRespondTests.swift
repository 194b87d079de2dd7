import Foundation
import HubDemo
import HubHTTP
import HubModel
import HubServer
import Testing

/// `HubApplication.respond(to:)`: the socket server's middleware stack and router, in memory.
@Suite("In-memory respond")
struct InMemoryRespondTests {
    /// The demo over a ``DemoConfigTests/demoCopy()``, and that copy (the caller removes it).
    static func demo() throws -> (app: HubApplication, directory: String) {
        let directory = try DemoConfigTests.demoCopy()
        let app = try HubApplication.load(
            directory: directory, extensions: DemoExtensions.make(), environment: DemoConfigTests.environment)
        return (app, directory)
    }

    @Test("answers without start(): a view with Hub-Session, ETag and the echoed X-Request-Id")
    func viewWithoutSocket() async throws {
        let (app, directory) = try Self.demo()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(app.port == 0, "never started")
        let response = await app.respond(
            to: HTTPRequest(method: .get, target: "/view?uri=hub:home", headers: ["X-Request-Id": "in-memory-1"]))
        #expect(response.status == .ok)
        #expect(response.headers["Hub-Session"] != nil)
        #expect(response.headers["ETag"] != nil)
        #expect(response.headers["X-Request-Id"] == "in-memory-1", "named as a connection names it")
        let view = try JSONParser().parse(try #require(response.body.bytes))
        #expect(view["header"]?["text"]?["title"]?.stringValue == "Home")
    }

    @Test("the router's problems: 404 route_not_found, 405 with Allow; a session carries over to an action")
    func routerAndSession() async throws {
        let (app, directory) = try Self.demo()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = await app.respond(to: HTTPRequest(method: .get, target: "/nowhere"))
        #expect(missing.status == .notFound)
        #expect(missing.headers["Content-Type"] == "application/problem+json")
        let wrong = await app.respond(to: HTTPRequest(method: .put, target: "/action"))
        #expect(wrong.status == .methodNotAllowed)
        #expect(wrong.headers["Allow"] != nil)

        let opened = await app.respond(to: HTTPRequest(method: .get, target: "/view?uri=hub:todo"))
        let session = try #require(opened.headers["Hub-Session"])
        let added = await app.respond(
            to: HTTPRequest(
                method: .post, target: "/action", headers: ["Content-Type": "application/json"],
                body: Array(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"In memory"}}"#.utf8)))
        #expect(added.status == .ok)
        let result = try JSONParser().parse(try #require(added.body.bytes))
        #expect(result["performed"]?.boolValue == true)
    }
}
