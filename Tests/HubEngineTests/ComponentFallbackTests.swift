import HubEngine
import HubModel
import Testing

/// Section 8 (S183..S186): component fallback moved to the server.
@Suite("Component fallback")
struct ComponentFallbackTests {
    static func component(
        _ identifier: String, _ component: ComponentIdentifier, category: String, type: ComponentType = .body,
        children: [ComponentModel] = [], target: ComponentTarget? = nil
    ) -> ComponentModel {
        ComponentModel(
            identifier: identifier, type: type, componentIdentifier: component, componentCategory: category,
            title: identifier, target: target, children: children)
    }

    static let fallback = ComponentFallback(
        fallbacks: ["card": "base:card", "row": "base:row"], defaultFallback: "base:default")
    static let renderable: Set<ComponentIdentifier> = ["base:card", "base:row", "base:default", "known:row"]

    @Test("S183 a component the client cannot render gets its category's fallback; the category is kept")
    func unknownNamespace() {
        let view = ViewModel(body: [
            Self.component("known", "known:row", category: "row"),
            Self.component("unknown-ns", "future:row", category: "row"),
            Self.component("unknown-name", "known:shiny", category: "row"),
        ])
        let mapped = Self.fallback.apply(to: view, renderable: Self.renderable)
        #expect(mapped.body.map(\.componentIdentifier) == ["known:row", "base:row", "base:row"])
        #expect(mapped.body.map(\.componentCategory) == ["row", "row", "row"])
        #expect(mapped.body.map(\.title) == ["known", "unknown-ns", "unknown-name"])
        #expect(mapped.body[0] === view.body[0])  // unchanged components are kept as they are
    }

    @Test("S184 the fallback is chosen per category; other categories use the default")
    func perCategory() {
        let view = ViewModel(body: [
            Self.component("a", "future:x", category: "card"),
            Self.component("b", "future:x", category: "row"),
            Self.component("c", "future:x", category: "carousel"),
        ])
        let mapped = Self.fallback.apply(to: view, renderable: Self.renderable)
        #expect(mapped.body.map(\.componentIdentifier) == ["base:card", "base:row", "base:default"])
        #expect(mapped.body.map(\.componentCategory) == ["card", "row", "carousel"])
        #expect(Self.fallback.fallback(forCategory: "banner") == "base:default")
    }

    @Test("Header, overlays, children and target views are mapped too")
    func nested() {
        let targetView = ViewModel(body: [Self.component("inner", "future:x", category: "card")])
        let view = ViewModel(
            title: "T",
            header: Self.component("header", "future:header", category: "header", type: .header),
            body: [
                Self.component(
                    "parent", "known:row", category: "row",
                    children: [Self.component("child", "future:x", category: "card")],
                    target: ComponentTarget(uri: "hub:next", initialViewModel: targetView))
            ],
            overlays: [Self.component("overlay", "future:x", category: "row", type: .overlay)])
        let mapped = Self.fallback.apply(to: view, renderable: Self.renderable)
        #expect(mapped.title == "T")
        #expect(mapped.header?.componentIdentifier == "base:default")
        #expect(mapped.header?.componentCategory == "header")
        let parent = mapped.body[0]
        #expect(parent.componentIdentifier == "known:row")
        #expect(parent.children.map(\.componentIdentifier) == ["base:card"])
        #expect(parent.target?.initialViewModel?.body.map(\.componentIdentifier) == ["base:card"])
        #expect(parent.target?.uri == "hub:next")
        #expect(mapped.overlays.map(\.componentIdentifier) == ["base:row"])
    }

    @Test("Nothing to map: the same view model instance")
    func unchanged() {
        let view = ViewModel(body: [Self.component("a", "known:row", category: "row")])
        #expect(Self.fallback.apply(to: view, renderable: Self.renderable) === view)
    }

    @Test("S186 the engine's component defaults are every builder's initial values and the default fallback")
    func defaults() async throws {
        let defaults = ComponentDefaults(namespace: "namespace", name: "name", category: "category")
        let configuration = ViewEngine.Configuration(operationDeadline: .seconds(30), componentDefaults: defaults, memoEntries: 0)
        let operation = ContentOperationMock { builder, _, _ in builder.body["a"].title = "A" }
        let (_, _, state) = try await EngineFixture.session([operation], configuration: configuration)
        let component = try #require(state.viewModel?.body.first)
        #expect(component.componentIdentifier == "namespace:name")
        #expect(component.componentCategory == "category")
        #expect(ComponentFallback().defaultFallback == ComponentDefaults.standard.componentIdentifier)
    }
}
