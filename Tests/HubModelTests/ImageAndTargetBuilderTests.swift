import HubModel
import Testing

/// Image data and target builders: S19..S22, S24, S26, S32 in code, S79, S80.
@Suite("Image and target builders (S19..S22, S79, S80)")
struct ImageAndTargetBuilderTests {
    @Test("S22 an empty image builder builds nothing; any one field builds an image (DESIGN: placeholder needs no resolver)")
    func s22() {
        #expect(ComponentImageDataBuilder().build(type: .main) == nil)
        #expect(ComponentImageDataBuilder(customData: [:]).build(type: .main) == nil)
        #expect(ComponentImageDataBuilder(uri: "https://u").build(type: .main)?.uri == "https://u")
        #expect(ComponentImageDataBuilder(placeholder: "p").build(type: .main)?.placeholder == "p")
        #expect(ComponentImageDataBuilder(localImageName: "l").build(type: .main)?.localImageName == "l")
        #expect(ComponentImageDataBuilder(customData: ["k": 1]).build(type: .main)?.customData == ["k": 1])
    }

    @Test("S79 image builder properties reach the model; a copy is independent")
    func s79() {
        var builder = ComponentImageDataBuilder()
        builder.uri = "https://u"
        builder.placeholder = "p"
        builder.localImageName = "l"
        builder.customData = ["k": "v"]
        let image = builder.build(type: .custom, identifier: "name")
        #expect(image == ComponentImageData(
            identifier: "name", type: .custom, uri: "https://u", placeholder: "p", localImageName: "l", customData: ["k": "v"]))
        var copy = builder
        copy.uri = "https://other"
        copy.customData?["k"] = "w"
        #expect(builder.uri == "https://u")
        #expect(builder.customData == ["k": "v"])
        #expect(copy != builder)
    }

    @Test("S24/S26 image JSON applies every field and never removes existing ones")
    func imageJSON() throws {
        var builder = ComponentImageDataBuilder(uri: "https://old", placeholder: "keep")
        try builder.add(json: ["uri": "https://new", "local": "l", "custom": ["a": 1]])
        try builder.add(json: ["custom": ["b": 2], "placeholder": nil, "uri": 5])
        #expect(builder == ComponentImageDataBuilder(uri: "https://new", placeholder: "keep", localImageName: "l", customData: ["a": 1, "b": 2]))
    }

    @Test("S80 target builder: uri, initial view title, actions and custom reach the model, and survive a copy")
    func s80() {
        var builder = ComponentTargetBuilder(uri: "https://t")
        builder.withInitialViewModel { $0.title = "Initial" }
        builder.addAction("ns:one")
        builder.addAction(namespace: "ns", name: "two")
        builder.customData = ["k": 1]
        let copy = builder
        builder.uri = "https://changed"
        builder.addAction(namespace: "ns", name: "three")
        for (target, uri, count) in [(copy.build(), "https://t", 2), (builder.build(), "https://changed", 3)] {
            #expect(target.uri == uri)
            #expect(target.initialViewModel?.title == "Initial")
            #expect(target.actionIdentifiers.count == count)
            #expect(target.customData == ["k": 1])
        }
        #expect(builder.build().actionIdentifiers.map(\.identifierString) == ["ns:one", "ns:two", "ns:three"])
    }

    @Test("S19 addAction keeps an ordered set")
    func s19() {
        var builder = ComponentTargetBuilder()
        builder.addAction("b:x")
        builder.addAction("a:y")
        builder.addAction(namespace: "b", name: "x")
        #expect(builder.actionIdentifiers == ["b:x", "a:y"])
        builder.removeAllActions()
        #expect(builder.actionIdentifiers.isEmpty)
    }

    @Test("S20 an empty target builder still builds a target")
    func s20() {
        #expect(ComponentTargetBuilder().build() == ComponentTarget())
        var component = ComponentModelBuilder(identifier: "c", type: .body)
        #expect(component.target == nil)
        component.withTarget { _ in }
        #expect(component.build().target == ComponentTarget())
    }

    @Test("S21 the initial view model is created lazily, with the given defaults")
    func s21() {
        var builder = ComponentTargetBuilder()
        #expect(builder.build().initialViewModel == nil)
        builder.withInitialViewModel(defaults: testDefaults) { $0.body["x"].title = "x" }
        let body = builder.build().initialViewModel?.body
        #expect(body?.first?.componentIdentifier == testDefaults.componentIdentifier)
    }

    @Test("S26/S32 target JSON merges into existing content; actions union")
    func targetJSON() throws {
        var builder = ComponentTargetBuilder(uri: "https://keep")
        builder.addAction("code:actionA")
        builder.withInitialViewModel { $0.title = "T" }
        try builder.add(json: [:])
        try builder.add(json: ["actions": ["json:actionB", "code:actionA", "bad"], "view": ["id": "v"], "custom": ["c": 1]])
        let target = builder.build()
        #expect(target.uri == "https://keep")
        #expect(target.actionIdentifiers == ["code:actionA", "json:actionB"])
        #expect(target.initialViewModel?.title == "T")
        #expect(target.initialViewModel?.identifier == "v")
        #expect(target.customData == ["c": 1])
    }

    @Test("S21/S164 a target's view is parsed recursively (nested targets too) with the builder's defaults")
    func nestedViews() throws {
        let model = try buildComponent(
            #"{"target":{"view":{"body":[{"id":"x","target":{"view":{"header":{"text":{"title":"deep"}}}}}]}}}"#,
            defaults: testDefaults)
        let inner = model.target?.initialViewModel?.body.first
        #expect(inner?.componentIdentifier == testDefaults.componentIdentifier)
        #expect(inner?.target?.initialViewModel?.header?.title == "deep")
    }
}
