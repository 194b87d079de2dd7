// An app that embeds HubServer: it serves the demo Config/ and adds its own Swift content
// operation and actions next to the configured ones.
//
//   swift run EmbeddedServer            # then: curl 'localhost:8080/view?uri=hub:todo'
//
// Config/features/todo.json refers to the names registered here:
//   { "kind": "swift", "name": "todoList", "rescheduleOn": ["todo:add", "todo:delete"] }
// and Config/actions.json maps the `todo` namespace to the action factory:
//   { "todo": { "kind": "swift", "name": "todo" } }
import HubDemo
import HubEngine
import HubModel
import HubServer

/// A Swift operation of this app: stamps the view with how many times it was built.
struct BuildCounterOperation: ContentOperation {
    var name: String { "buildCounter" }
    var completesSynchronously: Bool { true }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.setCustomDataValue(.string(context.sessionID), forKey: "session")
    }
}

let todos = TodoStore()
var extensions = SwiftExtensions()
extensions.registerOperation("todoList") { _ in todos.makeOperation() }
extensions.registerOperation("buildCounter") { _ in BuildCounterOperation() }
extensions.registerActionFactory("todo", todos.actionFactory)

let application = try HubApplication.load(extensions: extensions)
try await application.run()  // serves until SIGTERM/SIGINT, then drains
