import HubEngine
import HubModel

/// The `greeting` operation (`{"kind": "swift", "name": "greeting"}` in a feature): greets
/// the view URI's `name` query parameter (`starter:hello?name=Ada`; `world` without one),
/// offers a Wave row, and shows how often the session waved.
///
/// The count lives in the server's state store (`context.state`, scoped to the session), not
/// in this object: it lasts across restarts and replicas, as long as the session's token. The
/// `greeting:wave` action writes it (``StarterExtensions``); this operation only reads it, and
/// the engine, which follows what operations read, runs it again when the count changes. Write
/// state in actions: an operation's own writes never re-run its own view, but they do re-run
/// every other session that reads them.
public struct GreetingOperation: ContentOperation {
    /// The state key of the wave count (session scope).
    public static let wavesKey = "waves"

    public init() {}

    public var name: String { "greeting" }

    public func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let waved = try await context.state.read(Self.wavesKey)?.value.intValue ?? 0
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
}
