import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import Testing

/// Configs and helpers shared by the hardening tests: the demo's todo list, a memoizable
/// static view, and a feature whose Swift operation shows the request headers it can read.
enum Hardening {
    static func config(server: String = TestConfig.defaultServer) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("static", """
            { "id": "static", "title": "Static", "match": { "root": "hub:static" },
              "operations": [ { "kind": "static", "json": { "title": "Static", "body": [
                { "id": "a", "component": { "id": "default:row" }, "text": { "title": "A" } },
                { "id": "b", "component": { "id": "custom:card" }, "text": { "title": "B" } } ] } } ] }
            """)
        config.feature("todo", """
            { "id": "todo", "title": "Todo", "match": { "uri": "hub:todo" },
              "operations": [ { "kind": "swift", "name": "todoList", "rescheduleOn": ["todo:add", "todo:delete"] } ] }
            """)
        config.feature("headers", """
            { "id": "headers", "title": "Headers", "match": { "uri": "hub:headers" },
              "operations": [ { "kind": "swift", "name": "headers" } ] }
            """)
        config.feature("pages", """
            { "id": "pages", "title": "Pages", "match": { "uri": "hub:pages" },
              "operations": [ { "kind": "swift", "name": "pages" } ] }
            """)
        config["actions.json"] = """
            { "todo": { "kind": "swift", "name": "todo" },
              "remote": { "kind": "remote", "url": "http://127.0.0.1:9/actions/{action.name}", "timeoutMs": 500 } }
            """
        return config
    }

    static func extensions(store: TodoStore = TodoStore()) -> SwiftExtensions {
        var extensions = DemoExtensions.make(store: store)
        extensions.registerOperation("headers") { _ in HeaderEchoOperation() }
        extensions.registerOperation("pages") { _ in PagesOperation() }
        extensions.retainRequestHeaders("X-Declared")
        return extensions
    }

    /// The value of one sample line of `/metrics` (`name` with its labels).
    static func metric(_ client: HubClient, _ name: String) async throws -> Double? {
        try await client.metric(name)
    }
}

/// Shows which request headers the engine let through: `custom.headers` lists their names.
struct HeaderEchoOperation: ContentOperation {
    var name: String { "headers" }
    var completesSynchronously: Bool { true }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.setCustomDataValue(.array(context.request.headers.map { .string($0.name.lowercased()) }), forKey: "headers")
        builder.setCustomDataValue(.array(context.request.languages.map { .string($0) }), forKey: "languages")
        builder.body.update("row") { $0.title = "headers" }
    }
}

/// One row, and one more per page.
struct PagesOperation: ContentOperationWithPaginatedContent {
    var name: String { "pages" }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.body.update("page-0") { $0.title = "page 0" }
    }

    func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.body.update("page-\(pageIndex)") { $0.title = "page \(pageIndex)" }
    }
}
