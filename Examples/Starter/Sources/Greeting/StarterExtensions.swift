import HubEngine
import HubServer

/// The Swift names this app registers: `Config/features/hello.json` uses the `greeting`
/// operation, and `Config/actions.json` maps the `greeting` action namespace to its factory.
public enum StarterExtensions {
    public static func make() -> SwiftExtensions {
        var extensions = SwiftExtensions()
        extensions.registerOperation("greeting") { _ in GreetingOperation() }
        // `greeting:wave` (selecting the Wave row sends it): adds one to the session's wave count
        // in the state store; GreetingOperation, which reads it, runs again and shows it.
        extensions.registerActionFactory("greeting", ClosureActionFactory([
            "wave": { context in
                try await context.state.update(GreetingOperation.wavesKey) { value in
                    value = .int((value?.intValue ?? 0) + 1)
                    return true
                }
                return .performed
            },
        ]))
        return extensions
    }
}
