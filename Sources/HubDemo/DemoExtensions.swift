import HubEngine
import HubModel
import HubServer

/// The Swift extensions the stock `hub-server` binary registers so the demo `Config/` works
/// offline: the `todoList` operation and the `todo` action namespace, the `favoritesList`
/// operation and the `favorites` action namespace (each signed-in user's favorite foods).
public enum DemoExtensions {
    public static func make(store: TodoStore = TodoStore()) -> SwiftExtensions {
        var extensions = SwiftExtensions()
        extensions.registerOperation("todoList") { _ in store.makeOperation() }
        extensions.registerActionFactory("todo", store.actionFactory)
        extensions.registerOperation("favoritesList") { _ in Favorites.makeOperation() }
        extensions.registerActionFactory("favorites", Favorites.actionFactory)
        return extensions
    }
}
