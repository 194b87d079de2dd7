import HubEngine
import HubModel
import HubServer

/// The demo's todo list, written in Swift (HubFramework's action guide, "delete a song"), kept
/// in the server's state store: `todo:add`, `todo:delete` and `todo:clear` change the session's
/// list (`session/<id>/todo`, compare-and-set), and the `todoList` operation, which read it,
/// is re-run by the engine and renders the list again. With the default SQLite store the list
/// survives a restart; with PostgreSQL, every replica serves it and pushes its changes.
public final class TodoStore: Sendable {
    public struct TodoItem: Sendable, Equatable {
        public let id: String
        public let title: String
    }

    /// Items per list at most: `todo:add` on a full list is not performed.
    public let maximumItems: Int
    /// A title's most characters (grapheme clusters) and most UTF-8 bytes: `todo:add` with a
    /// longer one is refused (422 `invalid_body`). Both, because a few characters can be many
    /// bytes (a letter with hundreds of combining marks is one character).
    public static let maximumTitleCharacters = 200, maximumTitleBytes = 400
    /// The state key's name (in the session's scope).
    static let key = "todo"

    public init(maximumItems: Int = 100) {
        self.maximumItems = maximumItems
    }

    static let starter = ["Buy milk", "Write the HubServer talk", "Water the plants"]

    /// The list a session starts with, before its first change.
    static var starterList: TodoList {
        TodoList(items: starter.enumerated().map { TodoItem(id: "todo-\($0.offset + 1)", title: $0.element) }, nextID: starter.count + 1)
    }

    /// The session's items (the starter list until its first change).
    public func items(in state: StateAccess) async throws -> [TodoItem] {
        guard let stored = try await state.read(Self.key) else { return Self.starterList.items }
        return TodoList(stored.value)?.items ?? Self.starterList.items
    }

    /// Changes the session's list with `change` (which returns `false` to leave it as it is);
    /// returns whether it changed.
    func change(in state: StateAccess, _ change: @escaping (inout TodoList) -> Bool) async throws -> Bool {
        var changed = false
        try await state.update(Self.key) { value in
            var list = value.flatMap(TodoList.init) ?? Self.starterList
            changed = change(&list)
            if changed { value = list.json }
            return changed
        }
        return changed
    }

    /// The `todoList` operation for a session.
    public func makeOperation() -> any ContentOperation {
        TodoListOperation(store: self)
    }

    /// The `todo` action namespace: `add` (custom `{"title": ...}`), `delete` (the selected
    /// component, or custom `{"id": ...}`) and `clear` (the demo config vetoes it).
    public var actionFactory: any ActionFactory {
        let maximumItems = maximumItems
        return ClosureActionFactory([
            "add": { [self] context in
                guard let title = context.customData?["title"]?.stringValue, !title.isEmpty else { return .notPerformed }
                try Self.check(title: title)
                let added = try await change(in: context.state) { list in
                    guard list.items.count < maximumItems else { return false }
                    list.items.append(TodoItem(id: "todo-\(list.nextID)", title: title))
                    list.nextID += 1
                    return true
                }
                return added ? .performed : .notPerformed
            },
            "clear": { [self] context in
                _ = try await change(in: context.state) { list in
                    list.items.removeAll()
                    return true
                }
                return .performed
            },
            "delete": { [self] context in
                guard let id = context.customData?["id"]?.stringValue ?? context.componentModel?.identifier else {
                    return .notPerformed
                }
                let deleted = try await change(in: context.state) { list in
                    guard let index = list.items.firstIndex(where: { $0.id == id }) else { return false }
                    list.items.remove(at: index)
                    return true
                }
                return deleted ? .performed : .notPerformed
            },
        ])
    }
}

extension TodoStore {
    /// Throws ``ActionInputError`` for a title over ``maximumTitleCharacters`` or ``maximumTitleBytes``.
    static func check(title: String) throws {
        let bytes = title.utf8.count
        if bytes > maximumTitleBytes {
            throw ActionInputError("'custom.title' is \(bytes) bytes of UTF-8; a todo title is at most \(maximumTitleBytes) bytes")
        }
        // Counting characters walks the text: bounded by the byte check above.
        let characters = title.count
        if characters > maximumTitleCharacters {
            throw ActionInputError(
                "'custom.title' is \(characters) characters; a todo title is at most \(maximumTitleCharacters) characters")
        }
    }
}

/// A todo list as the state store holds it: `{"next": 4, "items": [{"id": ..., "title": ...}]}`.
struct TodoList: Sendable {
    var items: [TodoStore.TodoItem]
    var nextID: Int

    init(items: [TodoStore.TodoItem], nextID: Int) {
        self.items = items
        self.nextID = nextID
    }

    /// A stored list; `nil` when the value is not one.
    init?(_ value: JSONValue) {
        guard let next = value["next"]?.intValue, case .array(let stored)? = value["items"] else { return nil }
        var items: [TodoStore.TodoItem] = []
        for item in stored {
            guard let id = item["id"]?.stringValue, let title = item["title"]?.stringValue else { return nil }
            items.append(TodoStore.TodoItem(id: id, title: title))
        }
        self.init(items: items, nextID: next)
    }

    var json: JSONValue {
        ["next": .int(nextID), "items": .array(items.map { ["id": .string($0.id), "title": .string($0.title)] })]
    }
}

/// Renders the session's todo list. It reads the list from the state store, so the engine
/// re-runs it whenever the list changes (an action here, or on another replica).
struct TodoListOperation: ContentOperation {
    let store: TodoStore

    var name: String { "todoList" }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let items = try await store.items(in: context.state)
        for item in items {
            builder.body.update(item.id) { component in
                component.componentIdentifier = ComponentIdentifier(namespace: "default", name: "row")
                component.componentCategory = "row"
                component.title = item.title
                component.withTarget { $0.addAction(ComponentIdentifier(namespace: "todo", name: "delete")) }
            }
        }
        if items.isEmpty {
            builder.body.update("todo-empty") { $0.title = "Nothing to do" }
        }
        builder.setCustomDataValue(.int(items.count), forKey: "todoCount")
    }
}
