import HubEngine
import HubModel
import HubServer
import HubSync

/// The demo's todo list, written in Swift (HubFramework's action guide, "delete a song"):
/// `todo:add` and `todo:delete` change the session's list, and the `todoList` operation,
/// which observes those actions, is rescheduled and renders the list again.
public final class TodoStore: Sendable {
    private struct State {
        var lists: [String: [TodoItem]] = [:]
        var order: [String] = []
        var nextID = 1
    }

    public struct TodoItem: Sendable, Equatable {
        public let id: String
        public let title: String
    }

    private let state = Locked(State())
    /// Lists kept at most (oldest sessions' lists dropped first).
    public let capacity: Int
    /// Items per list at most: `todo:add` on a full list is not performed.
    public let maximumItems: Int

    public init(capacity: Int = 10_000, maximumItems: Int = 100) {
        self.capacity = capacity
        self.maximumItems = maximumItems
    }

    /// Lists held now.
    public var listCount: Int { state.withLock { $0.lists.count } }

    static let starter = ["Buy milk", "Write the HubServer talk", "Water the plants"]

    /// The session's items (a starter list for a new session).
    public func items(for session: String) -> [TodoItem] {
        state.withLock { state in
            if let list = state.lists[session] { return list }
            let list = Self.starter.enumerated().map { TodoItem(id: "todo-\($0.offset + 1)", title: $0.element) }
            Self.store(list, for: session, in: &state, capacity: capacity)
            state.nextID = max(state.nextID, list.count + 1)
            return list
        }
    }

    /// Adds an item; `false` when the list already holds ``maximumItems``.
    func add(_ title: String, for session: String) -> Bool {
        _ = items(for: session)
        return state.withLock { state in
            guard state.lists[session, default: []].count < maximumItems else { return false }
            let item = TodoItem(id: "todo-\(state.nextID)", title: title)
            state.nextID += 1
            state.lists[session, default: []].append(item)
            return true
        }
    }

    /// Frees a session's list (its session ended).
    func remove(session: String) {
        state.withLock { state in
            state.lists[session] = nil
            // Ids of freed lists stay in `order` until it is compacted: amortized O(1).
            if state.order.count > 2 * state.lists.count + 64 {
                state.order.removeAll { state.lists[$0] == nil }
            }
        }
    }

    func clear(for session: String) {
        _ = items(for: session)
        state.withLock { $0.lists[session] = [] }
    }

    func delete(_ id: String, for session: String) -> Bool {
        _ = items(for: session)
        return state.withLock { state in
            guard let index = state.lists[session]?.firstIndex(where: { $0.id == id }) else { return false }
            state.lists[session]!.remove(at: index)
            return true
        }
    }

    private static func store(_ list: [TodoItem], for session: String, in state: inout State, capacity: Int) {
        while state.lists.count >= capacity, !state.order.isEmpty {
            let oldest = state.order.removeFirst()
            state.lists[oldest] = nil
        }
        state.lists[session] = list
        state.order.append(session)
    }

    /// The `todoList` operation for a session.
    public func makeOperation() -> any ContentOperation {
        TodoListOperation(store: self)
    }

    /// The `todo` action namespace: `add` (custom `{"title": ...}`), `delete` (the selected
    /// component, or custom `{"id": ...}`) and `clear` (the demo config vetoes it).
    public var actionFactory: any ActionFactory {
        ClosureActionFactory([
            "add": { [self] context in
                guard let title = context.customData?["title"]?.stringValue, !title.isEmpty else { return .notPerformed }
                return add(String(title.prefix(200)), for: context.sessionID) ? .performed : .notPerformed
            },
            "clear": { [self] context in
                clear(for: context.sessionID)
                return .performed
            },
            "delete": { [self] context in
                let id = context.customData?["id"]?.stringValue ?? context.componentModel?.identifier
                guard let id else { return .notPerformed }
                return delete(id, for: context.sessionID) ? .performed : .notPerformed
            },
        ])
    }
}

/// Renders the session's todo list; rescheduled after every `todo:*` action.
///
/// One instance per session (the engine makes a session's operations when it opens): when
/// the session ends (deleted, evicted, expired) and the instance goes, the list goes with it.
final class TodoListOperation: ActionObservingContentOperation {
    let store: TodoStore
    /// The session this instance renders, learned on its first run.
    private let session = Locked<String?>(nil)

    init(store: TodoStore) {
        self.store = store
    }

    deinit {
        if let id = session.withLock({ $0 }) { store.remove(session: id) }
    }

    var name: String { "todoList" }
    var completesSynchronously: Bool { true }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        session.withLock { $0 = context.sessionID }
        let items = store.items(for: context.sessionID)
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

    func actionPerformed(_ action: ObservedAction) -> Bool {
        action.context.actionIdentifier.namespace == "todo"
    }
}
