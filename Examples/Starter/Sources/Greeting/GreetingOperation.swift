import HubEngine
import HubModel
import Synchronization

/// The `greeting` operation (`{"kind": "swift", "name": "greeting"}` in a feature): greets
/// the view URI's `name` query parameter (`starter:hello?name=Ada`; `world` without one) and
/// offers a Wave row; after every `greeting:*` action it is rescheduled and shows how often
/// the session waved.
///
/// The engine makes one instance per session, so the count is the session's and goes with it.
public final class GreetingOperation: ActionObservingContentOperation {
    private let waves = Mutex(0)

    public init() {}

    public var name: String { "greeting" }
    public var completesSynchronously: Bool { true }

    public func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let waved = waves.withLock { $0 }
        let name = context.request.queryValue("name") ?? "world"
        builder.body.update("greeting") { component in
            component.title = "Hello, \(name)"
            component.subtitle = waved == 1 ? "You waved once" : "You waved \(waved) times"
        }
        builder.body.update("wave") { component in
            component.componentIdentifier = ComponentIdentifier(namespace: "default", name: "row")
            component.title = "Wave"
            component.withTarget { $0.addAction(ComponentIdentifier(namespace: "greeting", name: "wave")) }
        }
    }

    /// Counts each performed `greeting:wave` and asks to run again after any `greeting:*` action.
    public func actionPerformed(_ action: ObservedAction) -> Bool {
        let identifier = action.context.actionIdentifier
        guard identifier.namespace == "greeting" else { return false }
        if identifier.name == "wave", action.performed { waves.withLock { $0 += 1 } }
        return true
    }
}
