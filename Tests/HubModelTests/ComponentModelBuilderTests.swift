import HubModel
import Testing

/// The component model builder: reference §2.3–§2.4, S68..S78, S81, S83.
@Suite("Component model builder (S68..S78, S81, S83)")
struct ComponentModelBuilderTests {
    @Test("S68 a new builder has the defaults and nothing else")
    func s68Defaults() {
        let builder = ComponentModelBuilder(identifier: "c", type: .overlay, defaults: testDefaults)
        #expect(builder.componentNamespace == "namespace")
        #expect(builder.componentName == "name")
        #expect(builder.componentCategory == "category")
        #expect(builder.defaults == testDefaults)
        let model = builder.build()
        #expect(model == ComponentModel(
            identifier: "c", type: .overlay, componentIdentifier: testDefaults.componentIdentifier, componentCategory: "category"))
        #expect(model.groupIdentifier == nil && model.title == nil && model.mainImageData == nil)
        #expect(model.target == nil && model.metadata == nil && model.customData == nil && model.children.isEmpty)
    }

    @Test("S68 every property set in code reaches the model; the defaults can be overridden")
    func s68Properties() {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        builder.groupIdentifier = "g"
        builder.componentNamespace = "ns"
        builder.componentName = "nm"
        builder.componentCategory = "cat"
        builder.title = "t"
        builder.subtitle = "s"
        builder.accessoryTitle = "a"
        builder.descriptionText = "d"
        builder.mainImage.placeholder = "pm"
        builder.backgroundImage.placeholder = "pb"
        builder.icon = "i"
        builder.withTarget { $0.uri = "https://t" }
        builder.metadata = ["m": 1]
        builder.loggingData = ["l": 1]
        builder.customData = ["c": 1]
        let model = builder.build(index: 3, parentPath: [1])
        #expect(model.identifier == "c" && model.type == .body)
        #expect(model.index == 3 && model.indexPath == [1, 3])
        #expect(model.groupIdentifier == "g")
        #expect(model.componentIdentifier == ComponentIdentifier(namespace: "ns", name: "nm"))
        #expect(model.componentCategory == "cat")
        #expect(model.title == "t" && model.subtitle == "s" && model.accessoryTitle == "a" && model.descriptionText == "d")
        #expect(model.mainImageData?.placeholder == "pm" && model.backgroundImageData?.placeholder == "pb")
        #expect(model.icon == "i")
        #expect(model.target?.uri == "https://t")
        #expect(model.metadata == ["m": 1] && model.loggingData == ["l": 1] && model.customData == ["c": 1])

        builder.componentIdentifier = "other:id"
        #expect(builder.componentNamespace == "other" && builder.componentName == "id")
    }

    @Test("S69 main and background images carry their types; URI conveniences map onto the image builders")
    func s69() {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        builder.mainImageURI = "https://main"
        builder.backgroundImageURI = "https://bg"
        #expect(builder.mainImage.uri == "https://main")
        #expect(builder.backgroundImage.uri == "https://bg")
        let model = builder.build()
        #expect(model.mainImageData?.type == .main)
        #expect(model.backgroundImageData?.type == .background)
        #expect(model.mainImageData?.identifier == nil)
        builder.mainImage.uri = "https://changed"
        #expect(builder.mainImageURI == "https://changed")
    }

    @Test("S70 custom images: get-or-create by name; built with identifier = name, type custom; empty ones absent")
    func s70() {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        #expect(builder[customImage: "x"].isEmpty)
        #expect(builder.customImageNames.isEmpty, "reading does not create")
        builder[customImage: "x"].uri = "https://x"
        builder[customImage: "x"].placeholder = "p"
        builder[customImage: "empty"].placeholder = nil
        #expect(builder.customImageNames == ["x", "empty"])
        let model = builder.build()
        #expect(model.customImageData == [ComponentImageData(identifier: "x", type: .custom, uri: "https://x", placeholder: "p")])
        #expect(model.customImage(named: "empty") == nil)
        builder.removeCustomImage(named: "x")
        #expect(builder.build().customImageData.isEmpty)
        #expect(builder.customImageNames == ["empty"])
    }

    @Test("S71 children are get-or-create by id")
    func s71() {
        var parent = ComponentModelBuilder(identifier: "p", type: .body)
        #expect(!parent.children.contains("child"))
        parent.children["child"].title = "t"
        parent.children["child"].subtitle = "s"
        #expect(parent.children.contains("child"))
        #expect(parent.children.count == 1)
        let child = parent.build().child(withIdentifier: "child")
        #expect(child?.title == "t" && child?.subtitle == "s")
    }

    @Test("S72 a child has its parent's type", arguments: ComponentType.allCases)
    func s72(_ type: ComponentType) {
        var parent = ComponentModelBuilder(identifier: "p", type: type)
        parent.children["c"].children["g"].title = "g"
        #expect(parent.children["c"].type == type)
        let model = parent.build()
        #expect(model.children[0].type == type)
        #expect(model.children[0].children[0].type == type)
    }

    @Test("S72 header, body and overlay children through the view builder")
    func s72View() throws {
        let view = try buildView(#"{"header":{"children":[{"id":"h"}]},"body":[{"id":"b","children":[{"id":"c"}]}],"overlays":[{"id":"o","children":[{"id":"c"}]}]}"#)
        #expect(view.header?.children[0].type == .header)
        #expect(view.body[0].children[0].type == .body)
        #expect(view.overlays[0].children[0].type == .overlay)
    }

    @Test("S73 decision: a new child starts with the component defaults, NOT its parent's namespace/name/category")
    func s73() {
        var parent = ComponentModelBuilder(identifier: "p", type: .body, defaults: testDefaults)
        parent.componentIdentifier = "parentns:parentname"
        parent.componentCategory = "parentcat"
        parent.children["c"].title = "x"
        let child = parent.build().children[0]
        #expect(child.componentIdentifier == testDefaults.componentIdentifier)
        #expect(child.componentCategory == "category")
    }

    @Test("S74 removing children")
    func s74() {
        var parent = ComponentModelBuilder(identifier: "p", type: .body)
        for id in ["a", "b", "c"] { parent.children[id].title = id }
        parent.children.remove("b")
        #expect(parent.children.count == 2)
        #expect(!parent.children.contains("b"))
        #expect(parent.build().children.map(\.identifier) == ["a", "c"])
        parent.children.removeAll()
        #expect(parent.children.isEmpty)
        #expect(parent.build().children.isEmpty)
    }

    @Test("S76 children in a group, in child order; unknown group gives nil")
    func s76() {
        var parent = ComponentModelBuilder(identifier: "p", type: .body)
        parent.children["a"].groupIdentifier = "g1"
        parent.children["b"].groupIdentifier = "g2"
        parent.children["c"].groupIdentifier = "g1"
        parent.children["c"].preferredIndex = 0
        let model = parent.build()
        #expect(model.children(inGroup: "g1")?.map(\.identifier) == ["c", "a"])
        #expect(model.children(inGroup: "g2")?.map(\.identifier) == ["b"])
        #expect(model.children(inGroup: "unknown") == nil)
    }

    @Test("S77 builders in a group track adds, removes, removeAll and group changes")
    func s77() {
        var parent = ComponentModelBuilder(identifier: "p", type: .body)
        #expect(parent.children.builders(inGroup: "g") == nil)
        parent.children["a"].groupIdentifier = "g"
        parent.children["b"].groupIdentifier = "g"
        #expect(parent.children.builders(inGroup: "g")?.map(\.identifier) == ["a", "b"])
        parent.children.remove("a")
        #expect(parent.children.builders(inGroup: "g")?.map(\.identifier) == ["b"])
        parent.children["b"].groupIdentifier = "h"
        #expect(parent.children.builders(inGroup: "g") == nil, "an emptied group is nil")
        #expect(parent.children.builders(inGroup: "h")?.map(\.identifier) == ["b"])
        parent.children["c"].groupIdentifier = "h"
        parent.children.removeAll()
        #expect(parent.children.builders(inGroup: "h") == nil)
    }

    @Test("S78 a copy has every field and independent image, custom image, target and child builders")
    func s78() {
        var original = ComponentModelBuilder(identifier: "c", type: .body)
        original.title = "t"
        original.groupIdentifier = "g"
        original.preferredIndex = 4
        original.mainImageURI = "https://m"
        original[customImage: "x"].uri = "https://x"
        original.withTarget { $0.addAction(namespace: "a", name: "b") }
        original.metadata = ["m": 1]
        original.children["k"].title = "child"
        let before = original.build()

        var copy = original
        #expect(copy.build() == before)
        #expect(copy.preferredIndex == 4)
        copy.mainImage.uri = "https://other"
        copy[customImage: "x"].placeholder = "p"
        copy.withTarget { $0.addAction(namespace: "c", name: "d") }
        copy.metadata?["m"] = 2
        copy.children["k"].title = "changed"
        copy.children["new"].title = "new"
        #expect(original.build() == before)
        #expect(copy.build() != before)
        #expect(copy.build().target?.actionIdentifiers.count == 2)
    }

    // MARK: - Equality (S81)

    @Test("S81 equality ignores index and indexPath")
    func s81Index() {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        builder.title = "t"
        builder.children["k"].title = "k"
        #expect(builder.build(index: 0) == builder.build(index: 7, parentPath: [3, 2]))
    }

    @Test("S81 every content property takes part in equality")
    func s81Properties() {
        let base = ComponentModelBuilder(identifier: "c", type: .body)
        let model = base.build()
        let changes: [(String, (inout ComponentModelBuilder) -> Void)] = [
            ("group", { $0.groupIdentifier = "g" }),
            ("namespace", { $0.componentNamespace = "x" }),
            ("name", { $0.componentName = "x" }),
            ("category", { $0.componentCategory = "x" }),
            ("title", { $0.title = "x" }),
            ("subtitle", { $0.subtitle = "x" }),
            ("accessory", { $0.accessoryTitle = "x" }),
            ("description", { $0.descriptionText = "x" }),
            ("main image", { $0.mainImageURI = "https://x" }),
            ("background image", { $0.backgroundImage.localImageName = "x" }),
            ("custom image", { $0[customImage: "x"].placeholder = "x" }),
            ("icon", { $0.icon = "x" }),
            ("target", { $0.withTarget { _ in } }),
            ("target view", { $0.withTarget { $0.withInitialViewModel { $0.title = "x" } } }),
            ("metadata", { $0.metadata = ["k": 1] }),
            ("logging", { $0.loggingData = ["k": 1] }),
            ("custom", { $0.customData = ["k": 1] }),
            ("children", { $0.children["k"].title = nil }),
        ]
        for (name, change) in changes {
            var changed = base
            change(&changed)
            #expect(changed.build() != model, "\(name)")
        }
        #expect(ComponentModelBuilder(identifier: "other", type: .body).build() != model, "identifier")
        #expect(ComponentModelBuilder(identifier: "c", type: .header).build() != model, "type")

        var deep = base
        deep.children["k"].children["g"].title = "a"
        var deeper = base
        deeper.children["k"].children["g"].title = "b"
        #expect(deep.build() != deeper.build(), "children compare deeply")
    }

    @Test("S81 custom data equality ignores key order, like JSON")
    func s81CustomOrder() throws {
        let a = try buildComponent(#"{"custom":{"a":1,"b":2}}"#)
        let b = try buildComponent(#"{"custom":{"b":2,"a":1}}"#)
        #expect(a == b)
    }

    // MARK: - Identifiers (S83)

    @Test("S83 identifiers: parse needs exactly one ':', equality is case-sensitive, identifierString is ns:name")
    func s83() {
        let identifier = ComponentIdentifier(namespace: "namespace", name: "name")
        #expect(identifier.identifierString == "namespace:name")
        #expect(identifier.description == "namespace:name")
        #expect(ComponentIdentifier(string: "namespace:name") == identifier)
        #expect(ComponentIdentifier(string: "") == nil)
        #expect(ComponentIdentifier(string: "namespaceWithoutName") == nil)
        #expect(ComponentIdentifier(string: "a:b:c") == nil)
        #expect(ComponentIdentifier(string: "Namespace:name") != identifier)
        #expect(ComponentIdentifier(string: "namespace:Name") != identifier)
        #expect(ComponentIdentifier(string: "é:ü")?.name == "ü")
        let literal: ComponentIdentifier = "spotify:row"
        #expect(literal.namespace == "spotify" && literal.name == "row")
    }
}
