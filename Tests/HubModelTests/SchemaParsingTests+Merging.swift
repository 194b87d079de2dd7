import HubModel
import Testing

/// A full component (S25) and how JSON merges into existing builders (S26-S34).
extension SchemaParsingTests {
    @Test("S25 a full component applies every field of table 1.2")
    func s25() throws {
        let model = try buildComponent(Self.fullComponent, identifier: "comp")
        #expect(model.identifier == "comp")
        #expect(model.groupIdentifier == "g")
        #expect(model.componentIdentifier == ComponentIdentifier(namespace: "ns", name: "name"))
        #expect(model.componentCategory == "card")
        #expect(model.title == "T" && model.subtitle == "S" && model.accessoryTitle == "A" && model.descriptionText == "D")
        #expect(model.mainImageData == ComponentImageData(type: .main, uri: "https://main", placeholder: "pm"))
        #expect(model.backgroundImageData == ComponentImageData(type: .background, uri: "https://bg", placeholder: "pb"))
        #expect(model.customImageData == [ComponentImageData(identifier: "x", type: .custom, uri: "https://x", placeholder: "px")])
        #expect(model.icon == "ic")
        #expect(model.target?.uri == "https://target")
        #expect(model.target?.initialViewModel?.title == "Initial")
        #expect(model.target?.actionIdentifiers == ["a:one", "a:two"])
        #expect(model.target?.customData == ["tc": 1])
        #expect(model.metadata == ["m": 1] && model.loggingData == ["l": 2] && model.customData == ["c": 3])
        #expect(model.children.map(\.identifier) == ["child1", "child2"])
        #expect(model.children.map(\.componentIdentifier.name) == ["c1", "c2"])
        #expect(model.children.map(\.componentCategory) == ["c1cat", "c2cat"])
        #expect(model.children.map(\.type) == [.body, .body])
    }

    // MARK: - 1.6 Merge semantics

    @Test("S26 absent keys never remove existing values")
    func s26() throws {
        let first = #"{"id":"v","title":"T","header":{"text":{"title":"H"}},"custom":{"k":1},"#
            + #""body":[{"id":"a","text":{"title":"A"},"images":{"main":{"uri":"https://i","placeholder":"p"}},"#
            + #""target":{"uri":"https://t","actions":["x:y"]},"metadata":{"m":1}}],"overlays":[{"id":"o"}]}"#
        let once = try buildView(first)
        #expect(try buildView(documents: [first, "{}"]) == once)
        #expect(try buildView(documents: [first, "[]"]) == once)
        #expect(try buildView(documents: [first, #"{"body":[{"id":"a"}],"header":{}}"#]) == once)
        #expect(try buildView(documents: [first, #"{"body":[{"id":"a","images":{"main":{}},"target":{}}]}"#]) == once)
    }

    @Test("S27 present, correctly typed scalars overwrite")
    func s27() throws {
        let view = try buildView(documents: [
            #"{"id":"v1","title":"T1","body":[{"id":"a","group":"g1","component":{"id":"n:a","category":"c1"},"text":{"title":"t1","subtitle":"s1"},"images":{"icon":"i1","main":{"uri":"https://1","placeholder":"p1"}},"target":{"uri":"https://t1"}}]}"#,
            #"{"id":"v2","title":"T2","body":[{"id":"a","group":"g2","component":{"id":"n:b","category":"c2"},"text":{"title":"t2"},"images":{"icon":"i2","main":{"uri":"https://2","placeholder":"p2"}},"target":{"uri":"https://t2"}}]}"#,
        ])
        let a = view.body[0]
        #expect(view.identifier == "v2" && view.title == "T2")
        #expect(a.groupIdentifier == "g2" && a.componentIdentifier.name == "b" && a.componentCategory == "c2")
        #expect(a.title == "t2" && a.subtitle == "s1")
        #expect(a.icon == "i2" && a.mainImageData?.uri == "https://2" && a.mainImageData?.placeholder == "p2")
        #expect(a.target?.uri == "https://t2")
    }

    @Test("S28 dictionaries merge shallowly; JSON wins; nested objects are replaced")
    func s28() throws {
        let view = try buildView(documents: [
            #"{"custom":{"custom":"data","nested":{"a":1,"b":2}},"body":[{"id":"a","metadata":{"m1":1},"logging":{"l1":1},"custom":{"c1":1},"images":{"main":{"custom":{"i1":1}}},"target":{"custom":{"t1":1}}}]}"#,
            #"{"custom":{"another":"value","nested":{"c":3}},"body":[{"id":"a","metadata":{"m2":2,"m1":"new"},"logging":{"l2":2},"custom":{"c2":2},"images":{"main":{"custom":{"i2":2}}},"target":{"custom":{"t2":2}}}]}"#,
        ])
        #expect(view.customData == ["custom": "data", "nested": ["c": 3], "another": "value"])
        #expect(view.customData?.orderedKeys == ["custom", "nested", "another"])
        let a = view.body[0]
        #expect(a.metadata == ["m1": "new", "m2": 2])
        #expect(a.loggingData == ["l1": 1, "l2": 2])
        #expect(a.customData == ["c1": 1, "c2": 2])
        #expect(a.mainImageData?.customData == ["i1": 1, "i2": 2])
        #expect(a.target?.customData == ["t1": 1, "t2": 2])
    }

    @Test("S29 the same id merges in place; new ids append in document order")
    func s29() throws {
        let view = try buildView(documents: [
            #"{"body":[{"id":"a","text":{"title":"A"}},{"id":"b"},{"id":"c"}],"overlays":[{"id":"o1"},{"id":"o2"}]}"#,
            #"{"body":[{"id":"d"},{"id":"b","text":{"title":"B"}},{"id":"e"}],"overlays":[{"id":"o3"},{"id":"o1","text":{"title":"O1"}}]}"#,
        ])
        #expect(view.body.map(\.identifier) == ["a", "b", "c", "d", "e"])
        #expect(view.body.map(\.title) == ["A", "B", nil, nil, nil])
        #expect(view.overlays.map(\.identifier) == ["o1", "o2", "o3"])
        #expect(view.overlays[0].title == "O1")
    }

    @Test("S30 duplicate ids inside one document merge at the first position")
    func s30() throws {
        let view = try buildView(#"{"body":[{"id":"a","text":{"title":"X"}},{"id":"b"},{"id":"a","text":{"subtitle":"Y"}}]}"#)
        #expect(view.body.map(\.identifier) == ["a", "b"])
        #expect(view.body[0].title == "X" && view.body[0].subtitle == "Y")
    }

    @Test("S31 children merge by id; id-less children get generated ids under their parent")
    func s31() throws {
        let view = try buildView(documents: [
            #"{"body":[{"id":"p","children":[{"id":"c1","text":{"title":"1"}},{"text":{"title":"anon"}}]}]}"#,
            #"{"body":[{"id":"p","children":[{"id":"c2"},{"id":"c1","text":{"subtitle":"s"}},{}]}]}"#,
        ])
        let children = view.body[0].children
        #expect(children.map(\.identifier) == ["c1", "UnknownComponent:p.0", "c2", "UnknownComponent:p.1"])
        #expect(children[0].title == "1" && children[0].subtitle == "s")
        #expect(children.map(\.indexPath) == [[0, 0], [0, 1], [0, 2], [0, 3]])
    }

    @Test("S32 JSON actions are appended to existing actions")
    func s32() throws {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        builder.withTarget { $0.addAction(namespace: "code", name: "actionA") }
        try builder.addJSON(Array(#"{"target":{"actions":["json:actionB","code:actionA"]}}"#.utf8))
        #expect(builder.build().target?.actionIdentifiers.map(\.identifierString) == ["code:actionA", "json:actionB"])
    }

    @Test("S33 a component builder's identifier never changes through JSON")
    func s33() throws {
        var builder = ComponentModelBuilder(identifier: "mine", type: .body)
        try builder.addJSON(Array(#"{"id":"other","text":{"title":"t"}}"#.utf8))
        #expect(builder.identifier == "mine")
        #expect(builder.build().identifier == "mine")
    }

    @Test("S34 ViewModelBuilder(json:) is the same as a fresh builder plus add(json:)")
    func s34() throws {
        let value = try parseJSON(#"{"id":"v","title":"T","body":[{"text":{"title":"a"}},{"id":"b"}],"header":{}}"#)
        var builder = ViewModelBuilder(defaults: testDefaults)
        try builder.add(json: value)
        #expect(try ViewModelBuilder(json: value, defaults: testDefaults).build() == builder.build())
    }
}
