import HubModel
import Testing

/// Serialization in the default schema: reference §1.7, S35..S46, with DESIGN.md's decisions
/// (icons and placeholders kept, image `local`/`custom` kept, nil AND empty values omitted,
/// deterministic generated ids, fixed key order, byte-stable output).
@Suite("Serialization (S35..S46)")
struct SerializationTests {
    @Test("S35 view keys in fixed order id,title,header,body,overlays,custom; nil and empty omitted")
    func s35() throws {
        #expect(ViewModel.empty.jsonString == "{}")
        #expect(ViewModelBuilder().build().jsonString == "{}")

        var builder = ViewModelBuilder()
        builder.customData = [:]
        #expect(builder.build().jsonString == "{}", "DESIGN: an empty custom is omitted (upstream writes {})")

        builder.overlays["o"].title = "O"
        builder.customData = ["k": 1]
        builder.body["b"].title = "B"
        builder.withHeader { $0.title = "H" }
        builder.title = "T"
        builder.identifier = "v"
        let output = try parseJSON(builder.build().jsonString)
        #expect(keys(output) == ["id", "title", "header", "body", "overlays", "custom"])
    }

    @Test("S36 component keys in fixed order; id and component always present")
    func s36() throws {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        // Set in an order unlike the output order.
        builder.children["k"].title = "child"
        builder.customData = ["c": 1]
        builder.loggingData = ["l": 1]
        builder.metadata = ["m": 1]
        builder.withTarget { $0.uri = "https://t" }
        builder.mainImageURI = "https://i"
        builder.title = "t"
        builder.componentCategory = "card"
        builder.groupIdentifier = "g"
        let output = try parseJSON(builder.build().jsonString)
        #expect(keys(output) == ["id", "group", "component", "text", "images", "target", "metadata", "logging", "custom", "children"])
        #expect(keys(output["component"]) == ["id", "category"])

        let bare = ComponentModelBuilder(identifier: "bare", type: .body, defaults: testDefaults).build()
        #expect(bare.jsonString == #"{"id":"bare","component":{"id":"namespace:name","category":"category"}}"#)
    }

    @Test("S37 text holds only its non-nil members, in order title,subtitle,accessory,description")
    func s37() throws {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        builder.descriptionText = "d"
        builder.subtitle = "s"
        #expect(keys(try parseJSON(builder.build().jsonString)["text"]) == ["subtitle", "description"])
        builder.accessoryTitle = "a"
        builder.title = ""
        #expect(keys(try parseJSON(builder.build().jsonString)["text"]) == ["title", "subtitle", "accessory", "description"])
        #expect(try parseJSON(builder.build().jsonString)["text"]?["title"] == "", "S7: the empty string is a value")
        let none = ComponentModelBuilder(identifier: "c", type: .body).build()
        #expect(try parseJSON(none.jsonString)["text"] == nil)
    }

    @Test("S38 images: main, background, icon (kept without a resolver, DESIGN), custom; absent when empty")
    func s38() throws {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        #expect(try parseJSON(builder.build().jsonString)["images"] == nil)
        builder[customImage: "empty"] = ComponentImageDataBuilder()
        #expect(try parseJSON(builder.build().jsonString)["images"] == nil, "an empty custom image is dropped")
        builder.icon = "heart"
        #expect(try parseJSON(builder.build().jsonString)["images"] == ["icon": "heart"])
        builder[customImage: "z"] = ComponentImageDataBuilder(uri: "https://z")
        builder[customImage: "a"] = ComponentImageDataBuilder(placeholder: "pa")
        builder.backgroundImage.uri = "https://bg"
        builder.mainImage.placeholder = "pm"
        let images = try parseJSON(builder.build().jsonString)["images"]
        #expect(keys(images) == ["main", "background", "icon", "custom"])
        #expect(keys(images?["custom"]) == ["z", "a"], "custom images in creation order")
        #expect(images?["custom"]?["a"] == ["placeholder": "pa"])
    }

    @Test("S39 image keys uri,placeholder,local,custom; local and custom ARE serialized (DESIGN)")
    func s39() throws {
        let json = #"{"body":[{"id":"a","component":{"id":"default:row","category":"row"},"images":{"#
            + #""main":{"uri":"https://m","placeholder":"p","local":"l","custom":{"k":"v"}},"#
            + #""background":{"custom":{"only":true}}}}]}"#
        #expect(try roundTrip(json) == json)
        var image = ComponentImageDataBuilder()
        image.customData = ["x": 1]
        image.localImageName = "l"
        image.placeholder = "p"
        image.uri = "https://u"
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        builder.mainImage = image
        #expect(keys(try parseJSON(builder.build().jsonString)["images"]?["main"]) == ["uri", "placeholder", "local", "custom"])
    }

    @Test("S40 target keys uri,view,actions,custom; an empty target is omitted (DESIGN; upstream writes {})")
    func s40() throws {
        var builder = ComponentModelBuilder(identifier: "c", type: .body)
        builder.withTarget { _ in }
        #expect(builder.build().target != nil, "S20: the model has the target")
        #expect(try parseJSON(builder.build().jsonString)["target"] == nil)
        builder.withTarget { target in
            target.customData = ["k": 1]
            target.addAction(namespace: "ns", name: "a")
            target.withInitialViewModel { $0.title = "Next" }
            target.uri = "https://t"
        }
        let target = try parseJSON(builder.build().jsonString)["target"]
        #expect(keys(target) == ["uri", "view", "actions", "custom"])
        #expect(target?["view"] == ["title": "Next"])
        #expect(target?["actions"] == ["ns:a"])
        builder.withTarget { $0.removeAllActions() }
        #expect(try parseJSON(builder.build().jsonString)["target"]?["actions"] == nil, "empty actions omitted")
    }

    @Test("S40 target.view:{} exists in the model (S21) but is omitted on output (DESIGN: no {})")
    func s40EmptyView() throws {
        let model = try buildComponent(#"{"target":{"view":{}}}"#)
        #expect(model.target?.initialViewModel != nil, "S21: view present means an initial view model")
        #expect(!model.jsonString.contains("{}"))
        #expect(!model.jsonString.contains("target"))
    }

    @Test("S41 preferredIndex, type, index and indexPath are never serialized")
    func s41() throws {
        var builder = ViewModelBuilder()
        builder.body["a"].preferredIndex = 1
        builder.body["b"].preferredIndex = 0
        builder.body["a"].children["c"].preferredIndex = 5
        builder.overlays["o"].preferredIndex = 3
        let text = builder.build().jsonString
        for word in ["preferredIndex", "\"type\"", "\"index\"", "indexPath", "\"parent\"", "buildDate"] {
            #expect(!text.contains(word), "\(word)")
        }
        #expect(text == #"{"body":[{"id":"b","component":{"id":"default:row","category":"row"}},{"id":"a","component":{"id":"default:row","category":"row"},"children":[{"id":"c","component":{"id":"default:row","category":"row"}}]}],"overlays":[{"id":"o","component":{"id":"default:row","category":"row"}}]}"#)
    }

    @Test("S42 'component' is always written with the defaults filled in")
    func s42() throws {
        #expect(try roundTrip(#"{"body":[{"id":"a"}]}"#) == #"{"body":[{"id":"a","component":{"id":"default:row","category":"row"}}]}"#)
        #expect(
            try roundTrip(#"{"body":[{"id":"a"}]}"#, defaults: testDefaults)
                == #"{"body":[{"id":"a","component":{"id":"namespace:name","category":"category"}}]}"#)
    }

    @Test("S44 id + component only, plus view id/title/custom, serialize back exactly (no empty text/images)")
    func s44() throws {
        let json = #"{"id":"viewId","title":"A title","#
            + #""header":{"id":"header","component":{"id":"namespace:header","category":"headerCategory"}},"#
            + #""body":[{"id":"component1","component":{"id":"namespace:component1","category":"category1"}},"#
            + #"{"id":"component2","component":{"id":"namespace:component2","category":"category2"}}],"#
            + #""overlays":[{"id":"overlay","component":{"id":"namespace:overlay","category":"overlayCategory"}}],"#
            + #""custom":{"custom":"data"}}"#
        #expect(try roundTrip(json, defaults: testDefaults) == json)
    }

    @Test("S45 a full component (table 1.2 plus children) serializes back exactly")
    func s45() throws {
        let json = #"{"body":[{"id":"comp","group":"g","component":{"id":"ns:name","category":"card"},"#
            + #""text":{"title":"T","subtitle":"S","accessory":"A","description":"D"},"#
            + #""images":{"main":{"uri":"https://main","placeholder":"pm"},"background":{"uri":"https://bg","placeholder":"pb"},"#
            + #""icon":"ic","custom":{"x":{"uri":"https://x","placeholder":"px"}}},"#
            + #""target":{"uri":"https://target","view":{"title":"Initial"},"actions":["a:one","a:two"],"custom":{"tc":1}},"#
            + #""metadata":{"m":1},"logging":{"l":2},"custom":{"c":3},"#
            + #""children":[{"id":"child1","component":{"id":"cns:c1","category":"c1cat"}},"#
            + #"{"id":"child2","component":{"id":"cns:c2","category":"c2cat"}}]}]}"#
        #expect(try roundTrip(json) == json)
    }

    @Test("S46 empty values are dropped on output; id-less components gain deterministic ids; header:{} gets id and defaults")
    func s46() throws {
        #expect(try roundTrip(#"{"body":[],"overlays":[]}"#) == "{}")
        #expect(
            try roundTrip(#"{"body":[{"id":"a","text":{},"images":{},"children":[],"metadata":{},"logging":{},"custom":{},"target":{}}]}"#)
                == #"{"body":[{"id":"a","component":{"id":"default:row","category":"row"}}]}"#)
        #expect(
            try roundTrip(#"{"body":[{"id":"a","images":{"main":{},"background":{"custom":{}},"custom":{"x":{}}}}]}"#)
                == #"{"body":[{"id":"a","component":{"id":"default:row","category":"row"}}]}"#)
        #expect(
            try roundTrip(#"{"header":{}}"#) == #"{"header":{"id":"header","component":{"id":"default:row","category":"row"}}}"#)
        #expect(
            try roundTrip(#"[{"text":{"title":"x"}}]"#)
                == #"{"body":[{"id":"UnknownComponent:body.0","component":{"id":"default:row","category":"row"},"text":{"title":"x"}}]}"#)
        #expect(try roundTrip(#"{"custom":{}}"#) == "{}")
    }

    @Test("S43/S46 empty dictionaries build as nil, so parse → serialize → parse gives an equal model")
    func emptyDictionaries() throws {
        let json = #"{"custom":{},"body":[{"id":"a","metadata":{},"logging":{},"custom":{},"images":{"main":{"uri":"https://m","custom":{}}},"target":{"uri":"https://t","custom":{}}}]}"#
        let view = try buildView(json)
        #expect(view.customData == nil)
        #expect(view.body[0].metadata == nil && view.body[0].loggingData == nil && view.body[0].customData == nil)
        #expect(view.body[0].target?.customData == nil && view.body[0].mainImageData?.customData == nil)
        #expect(try buildView(view.jsonString) == view)
        #expect(try buildView(#"{"body":[{"id":"a","images":{"main":{"uri":"https://m"}},"target":{"uri":"https://t"}}]}"#) == view)
    }

    @Test("S20/S46 an empty target is a model difference that serialization cannot show (DESIGN omits it)")
    func emptyTargetRoundTrip() throws {
        let view = try buildView(#"{"body":[{"id":"a","target":{}}]}"#)
        #expect(view.body[0].target != nil, "S20")
        let reparsed = try buildView(view.jsonString)
        #expect(reparsed.body[0].target == nil, "DESIGN: the empty target is not written, so it does not come back")
    }

    // MARK: - Byte stability

    @Test("byte-stable: the same model gives the same bytes, twice and across builds")
    func byteStable() throws {
        let json = #"{"id":"v","custom":{"z":1,"a":{"y":2,"b":3}},"body":[{"id":"a","metadata":{"m2":1,"m1":2}},{"text":{"title":"x"}}]}"#
        let first = try buildView(json)
        let second = try buildView(json)
        #expect(first.jsonBytes() == first.jsonBytes())
        #expect(first.jsonBytes() == second.jsonBytes())
        // Re-parsing the output and serializing again is a fixed point.
        let output = first.jsonString
        #expect(try roundTrip(output) == output)
    }

    @Test("free-form dictionaries keep their input order, at every level")
    func dictionaryOrder() throws {
        let json = #"{"body":[{"id":"a","component":{"id":"default:row","category":"row"},"metadata":{"z":1,"a":2,"m":{"y":1,"b":2}},"logging":{"9":0,"1":0},"custom":{"b":[{"d":1,"c":2}],"a":null}}],"custom":{"zz":1,"aa":2}}"#
        #expect(try roundTrip(json) == json)
    }

    @Test("merged dictionaries keep existing keys in place and append new ones")
    func mergedOrder() throws {
        let view = try buildView(documents: [#"{"custom":{"b":1,"a":2}}"#, #"{"custom":{"c":3,"b":4}}"#])
        #expect(view.jsonString == #"{"custom":{"b":4,"a":2,"c":3}}"#)
    }

    @Test("strings are escaped and numbers kept exactly through a round trip")
    func escapingAndNumbers() throws {
        let json = #"{"title":"q\"b\\s\n\u0001 é😀","custom":{"i":9007199254740993,"d":0.1,"neg":-0.5,"e":1e+300,"t":true}}"#
        let output = try roundTrip(json)
        #expect(try parseJSON(output) == (try parseJSON(json)))
        #expect(output.contains("9007199254740993"))
        #expect(try buildView(output).title == "q\"b\\s\n\u{1} é😀")
    }
}
