import HubEngine
import HubModel
import HubServer

/// The demo's favorite foods: each signed-in user's own list, in user-scoped state
/// (`user/<digest of the subject>/favorites`), so it follows the user from session to session
/// and device to device. `favorites:add` and `favorites:remove` (custom `{"food": "..."}`)
/// change it; the `favoritesList` operation, which read it, is re-run in every session of that
/// user that follows it (a phone and a tablet, on any replica sharing the store) and pushes the
/// new view to their streams. Another user's sessions never read the key.
public enum Favorites {
    /// Foods a list holds at most; `favorites:add` on a full list is not performed.
    public static let maximumFoods = 50
    /// A food's most UTF-8 bytes (longer: 422 `invalid_body`).
    public static let maximumFoodBytes = 100
    /// The state key's name (in the user's scope).
    static let key = "favorites"

    /// The user's foods, in the order added.
    static func foods(in state: StateAccess) async throws -> [String] {
        guard let stored = try await state.read(key, in: .user), case .array(let values) = stored.value else { return [] }
        return values.compactMap(\.stringValue)
    }

    /// The `favoritesList` operation.
    public static func makeOperation() -> any ContentOperation { FavoritesListOperation() }

    /// The `favorites` action namespace: `add` and `remove`, each with custom `{"food": "..."}`.
    public static var actionFactory: any ActionFactory {
        ClosureActionFactory([
            "add": { context in
                let food = try food(of: context)
                return try await change(context.state) { foods in
                    guard !foods.contains(food), foods.count < maximumFoods else { return false }
                    foods.append(food)
                    return true
                } ? .performed : .notPerformed
            },
            "remove": { context in
                let food = try food(of: context)
                return try await change(context.state) { foods in
                    guard let index = foods.firstIndex(of: food) else { return false }
                    foods.remove(at: index)
                    return true
                } ? .performed : .notPerformed
            },
        ])
    }

    /// The action's `custom.food` (or the tapped row's food), or 422 `invalid_body`.
    private static func food(of context: ActionContext) throws -> String {
        let tapped = context.componentModel.flatMap { model in
            model.identifier.hasPrefix("favorite-") ? String(model.identifier.dropFirst("favorite-".count)) : nil
        }
        guard let food = context.customData?["food"]?.stringValue ?? tapped, !food.isEmpty else {
            throw ActionInputError("give the food in 'custom.food'")
        }
        guard food.utf8.count <= maximumFoodBytes else {
            throw ActionInputError("'custom.food' is \(food.utf8.count) bytes; a food is at most \(maximumFoodBytes) bytes")
        }
        return food
    }

    /// Changes the user's list with `change` (compare-and-set); returns whether it changed.
    private static func change(_ state: StateAccess, _ change: (inout [String]) -> Bool) async throws -> Bool {
        var changed = false
        try await state.update(key, in: .user) { value in
            var foods = value?.arrayValue?.compactMap(\.stringValue) ?? []
            changed = change(&foods)
            if changed { value = .array(foods.map { .string($0) }) }
            return changed
        }
        return changed
    }
}

/// Renders the user's favorite foods; reading them makes the engine follow the key.
struct FavoritesListOperation: ContentOperation {
    var name: String { "favoritesList" }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let foods = try await Favorites.foods(in: context.state)
        for food in foods {
            builder.body.update("favorite-" + food) { component in
                component.componentIdentifier = ComponentIdentifier(namespace: "default", name: "row")
                component.componentCategory = "row"
                component.title = food
                component.withTarget {
                    $0.addAction(ComponentIdentifier(namespace: "favorites", name: "remove"))
                }
            }
        }
        if foods.isEmpty { builder.body.update("favorites-empty") { $0.title = "No favorites yet" } }
        builder.setCustomDataValue(.int(foods.count), forKey: "favoriteCount")
    }
}
