import HubEngine
import HubServer

/// The Swift names this app registers: `Config/features/hello.json` uses the `greeting`
/// operation, and `Config/actions.json` maps the `greeting` action namespace to its factory.
public enum StarterExtensions {
    public static func make() -> SwiftExtensions {
        var extensions = SwiftExtensions()
        extensions.registerOperation("greeting") { _ in GreetingOperation() }
        // `greeting:wave` (selecting the Wave row sends it): performed; GreetingOperation,
        // which observes it, counts it and renders the view again.
        extensions.registerActionFactory("greeting", ClosureActionFactory([
            "wave": { _ in .performed },
        ]))
        return extensions
    }
}
