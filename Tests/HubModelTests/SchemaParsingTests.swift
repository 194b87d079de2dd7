import HubModel
import Testing

/// Default JSON schema parsing and merge rules: reference §1.1–§1.6, S1..S34.
@Suite("Default schema parsing (S1..S34)")
struct SchemaParsingTests {
    // MARK: - 1.5 Root shapes and errors

    @Test("S1 a root object is a view model")
    func s1() throws {
        let view = try buildView(#"{"id":"v","title":"T","custom":{"k":1}}"#)
        #expect(view.identifier == "v")
        #expect(view.title == "T")
        #expect(view.customData == ["k": 1])
        #expect(view.body.isEmpty && view.header == nil && view.overlays.isEmpty)
    }

    @Test("S2 a root array is a list of body components; non-objects are skipped")
    func s2() throws {
        let view = try buildView(
            #"[{"component":{"id":"namespace:component1"}},5,"x",null,[],{"component":{"id":"namespace:component2"}}]"#)
        #expect(view.body.map(\.componentIdentifier.name) == ["component1", "component2"])
        #expect(view.body.map(\.index) == [0, 1])
        #expect(view.identifier == nil && view.header == nil)
    }

    @Test("S3 a scalar root is rejected and the builder is unchanged", arguments: [#""abc""#, "5", "true", "null"])
    func s3(_ document: String) throws {
        var builder = ViewModelBuilder()
        try builder.addJSON(Array(#"{"id":"v","body":[{"id":"a"}]}"#.utf8))
        let before = builder.build()
        #expect(throws: JSONParseError.self) { try builder.addJSON(Array(document.utf8)) }
        do {
            try builder.addJSON(Array(document.utf8))
        } catch {
            #expect(error.reason == .notAContainer)
        }
        #expect(builder.build() == before)
    }

    @Test("S4 non-JSON bytes (HTML) fail with the parser's error; the builder is unchanged")
    func s4() throws {
        var builder = ViewModelBuilder()
        builder.title = "kept"
        do {
            try builder.addJSON(Array("<html><body>oops</body></html>".utf8))
            Issue.record("HTML was accepted")
        } catch {
            #expect(error.reason == .unexpectedByte(UInt8(ascii: "<")))
            #expect(error.line == 1 && error.column == 1)
        }
        // A valid prefix followed by garbage must not half-apply either.
        do {
            try builder.addJSON(Array(#"{"title":"changed","body":[{"id":"a"}]} trailing"#.utf8))
            Issue.record("trailing garbage was accepted")
        } catch {
            #expect(error.reason == .trailingBytes)
        }
        #expect(builder.title == "kept")
        #expect(builder.isEmpty)
    }

    @Test("S5 component, image and target builders accept only a root object")
    func s5() throws {
        var component = ComponentModelBuilder(identifier: "c", type: .body)
        component.title = "kept"
        for (bytes, reason) in [
            ("", JSONParseError.Reason.empty), ("[]", .notAContainer), ("\"s\"", .notAContainer),
            ("{\"text\":", .unexpectedEnd),
        ] {
            do {
                try component.addJSON(Array(bytes.utf8))
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.reason == reason)
            }
        }
        #expect(component.build().title == "kept")

        var image = ComponentImageDataBuilder()
        #expect(throws: JSONParseError.self) { try image.add(json: []) }
        #expect(throws: JSONParseError.self) { try image.add(json: "uri") }
        #expect(image.isEmpty)
        var target = ComponentTargetBuilder()
        #expect(throws: JSONParseError.self) { try target.add(json: [1]) }
        #expect(throws: JSONParseError.self) { try target.add(json: nil) }
        #expect(target.build() == ComponentTarget())
    }

    @Test("addJSON rejects duplicate keys and too-deep documents by default; the parser is configurable")
    func parserPolicy() throws {
        var builder = ViewModelBuilder()
        do {
            try builder.addJSON(Array(#"{"title":"a","title":"b"}"#.utf8))
            Issue.record("duplicate keys accepted")
        } catch {
            #expect(error.reason == .duplicateKey("title"))
        }
        #expect(builder.title == nil)
        try builder.addJSON(Array(#"{"title":"a","title":"b"}"#.utf8), parser: JSONParser(options: .init(duplicateKeys: .keepLast)))
        #expect(builder.title == "b")
        let deep = #"{"custom":"# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"
        #expect(throws: JSONParseError.self) { try builder.addJSON(Array(deep.utf8)) }
        try builder.addJSON(Array(deep.utf8), parser: JSONParser(options: .init(maxDepth: 65)))
    }

    // MARK: - Type checks

    @Test("S6 wrong types are ignored, never coerced")
    func s6() throws {
        let view = try buildView(
            #"{"id":5,"title":true,"custom":"x","header":"h","body":{"id":"a"},"overlays":"o"}"#)
        #expect(view.identifier == nil && view.title == nil && view.customData == nil)
        #expect(view.header == nil && view.body.isEmpty && view.overlays.isEmpty)

        let component = try buildComponent(
            #"{"group":1,"text":{"title":5,"subtitle":["s"],"accessory":{},"description":false},"#
                + #""metadata":[1],"logging":"l","custom":2,"children":{"id":"x"},"images":"i","target":"t"}"#)
        #expect(component.groupIdentifier == nil)
        #expect(component.title == nil && component.subtitle == nil)
        #expect(component.accessoryTitle == nil && component.descriptionText == nil)
        #expect(component.metadata == nil && component.loggingData == nil && component.customData == nil)
        #expect(component.children.isEmpty && component.mainImageData == nil && component.target == nil)

        let numeric = try buildComponent(#"{"component":{"id":5,"category":7},"images":{"icon":3,"main":{"uri":1,"placeholder":2}}}"#)
        #expect(numeric.componentIdentifier == ComponentDefaults.standard.componentIdentifier)
        #expect(numeric.componentCategory == "row")
        #expect(numeric.icon == nil && numeric.mainImageData == nil)
    }

    @Test("S6 a non-string id counts as missing: a generated id, appended (S16)")
    func s6Identifier() throws {
        let view = try buildView(#"{"body":[{"id":5,"text":{"title":"a"}},{"id":5,"text":{"title":"b"}}]}"#)
        #expect(view.body.map(\.title) == ["a", "b"])
        #expect(view.body.map(\.identifier) == ["UnknownComponent:body.0", "UnknownComponent:body.1"])
    }

    @Test("S7 the empty string is a value and is applied")
    func s7() throws {
        let view = try buildView(documents: [
            #"{"title":"T","body":[{"id":"a","text":{"title":"X"}}]}"#,
            #"{"title":"","body":[{"id":"a","text":{"title":""}}]}"#,
        ])
        #expect(view.title == "")
        #expect(view.body[0].title == "")
    }

    @Test("S8 null never clears an existing value")
    func s8() throws {
        let view = try buildView(documents: [
            #"{"id":"v","title":"T","custom":{"k":1},"body":[{"id":"a","text":{"title":"X"},"custom":{"c":1},"images":{"main":{"uri":"u"}}}]}"#,
            #"{"id":null,"title":null,"custom":null,"header":null,"body":[{"id":"a","text":{"title":null},"custom":null,"images":{"main":{"uri":null}}}]}"#,
        ])
        #expect(view.identifier == "v" && view.title == "T" && view.customData == ["k": 1])
        #expect(view.header == nil)
        #expect(view.body[0].title == "X")
        #expect(view.body[0].customData == ["c": 1])
        #expect(view.body[0].mainImageData?.uri == "u")
    }

    @Test("S8 null inside a free-form dictionary is data and is kept")
    func s8NullInCustom() throws {
        let view = try buildView(#"{"custom":{"k":null}}"#)
        #expect(view.customData == ["k": nil])
        #expect(view.jsonString == #"{"custom":{"k":null}}"#)
    }

    @Test("S9 URI fields drop strings that are not RFC 3986 URI references (DESIGN: URIReference)")
    func s9() throws {
        for bad in ["é", "a b", "%zz", "", "http://x/<y>", "a\"b"] {
            let json = JSONValue.object(["images": ["main": ["uri": .string(bad)]], "target": ["uri": .string(bad)]])
            var builder = ComponentModelBuilder(identifier: "c", type: .body)
            try builder.add(json: json)
            let model = builder.build()
            #expect(model.mainImageData == nil, "image uri \(bad)")
            #expect(model.target?.uri == nil, "target uri \(bad)")
        }
        for good in ["https://spotify.com/a?b=c#d", "spotify:track:1", "/relative/path", "%C3%A9", "a-b._~!$&'()*+,;=:@"] {
            #expect(URIReference.isValid(good), "\(good)")
            let model = try buildComponent(#"{"target":{"uri":"\#(good)"}}"#)
            #expect(model.target?.uri == good)
        }
        #expect(!URIReference.isValid("%4"))
    }

    // MARK: - component.id

    @Test("S10 component.id 'ns:name' sets namespace and name")
    func s10() throws {
        let model = try buildComponent(#"{"component":{"id":"header:component","category":"cat"}}"#)
        #expect(model.componentIdentifier == ComponentIdentifier(namespace: "header", name: "component"))
        #expect(model.componentCategory == "cat")
    }

    @Test("S11 component.id without a colon sets only the name; the namespace is kept")
    func s11() throws {
        let fresh = try buildComponent(#"{"component":{"id":"row2"}}"#, defaults: testDefaults)
        #expect(fresh.componentIdentifier == ComponentIdentifier(namespace: "namespace", name: "row2"))

        var builder = ComponentModelBuilder(identifier: "c", type: .body, defaults: testDefaults)
        try builder.addJSON(Array(#"{"component":{"id":"earlier:first"}}"#.utf8))
        try builder.addJSON(Array(#"{"component":{"id":"second"}}"#.utf8))
        #expect(builder.build().componentIdentifier == ComponentIdentifier(namespace: "earlier", name: "second"))
    }

    @Test("S12 extra ':' parts are dropped; ':x' and '' are legal")
    func s12() throws {
        #expect(try buildComponent(#"{"component":{"id":"a:b:c"}}"#).componentIdentifier == ComponentIdentifier(namespace: "a", name: "b"))
        #expect(try buildComponent(#"{"component":{"id":":x"}}"#).componentIdentifier == ComponentIdentifier(namespace: "", name: "x"))
        let empty = try buildComponent(#"{"component":{"id":""}}"#, defaults: testDefaults)
        #expect(empty.componentIdentifier == ComponentIdentifier(namespace: "namespace", name: ""))
        #expect(try buildComponent(#"{"component":{"id":"x:"}}"#).componentIdentifier == ComponentIdentifier(namespace: "x", name: ""))
    }

    @Test("S12 a name with ':' set in code does not survive a round trip")
    func s12RoundTrip() throws {
        var builder = ViewModelBuilder()
        builder.body["a"].componentIdentifier = ComponentIdentifier(namespace: "ns", name: "na:me")
        let text = builder.build().jsonString
        let reparsed = try buildView(text)
        #expect(reparsed.body[0].componentIdentifier == ComponentIdentifier(namespace: "ns", name: "na"))
    }

    @Test("S13 absent component.id / category keep the defaults or earlier values")
    func s13() throws {
        let fresh = try buildComponent(#"{"text":{"title":"t"}}"#, defaults: testDefaults)
        #expect(fresh.componentIdentifier == testDefaults.componentIdentifier)
        #expect(fresh.componentCategory == "category")

        var builder = ComponentModelBuilder(identifier: "c", type: .body, defaults: testDefaults)
        try builder.addJSON(Array(#"{"component":{"id":"a:b","category":"card"}}"#.utf8))
        try builder.addJSON(Array(#"{"component":{}}"#.utf8))
        try builder.addJSON(Array(#"{"text":{"title":"t"}}"#.utf8))
        let model = builder.build()
        #expect(model.componentIdentifier == ComponentIdentifier(namespace: "a", name: "b"))
        #expect(model.componentCategory == "card")
    }

    @Test("S14 'component' must be an object; a string is ignored")
    func s14() throws {
        let asString = try buildView(#"{"title":"T","body":[{"id":"a","component":"ns:name"}]}"#)
        let asObject = try buildView(#"{"title":"T","body":[{"id":"a"}]}"#)
        #expect(asString == asObject)
        #expect(asString.body[0].componentIdentifier == ComponentDefaults.standard.componentIdentifier)
    }

    @Test("S15 images.custom entries that are not objects, or yield nothing, are absent")
    func s15() throws {
        let model = try buildComponent(
            #"{"images":{"custom":{"a":"x","b":{"uri":"https://b"},"c":{},"d":5,"e":{"custom":{}}}}}"#)
        #expect(model.customImageData.map(\.identifier) == ["b"])
        #expect(model.customImage(named: "b")?.type == .custom)
        #expect(model.customImage(named: "c") == nil)
    }

    // MARK: - Identity

    @Test("S16 id-less components get deterministic generated ids and are always appended (DESIGN: no UUIDs)")
    func s16() throws {
        let json = #"{"body":[{"text":{"title":"1"}},{"text":{"title":"2"}}],"overlays":[{}],"#
            + #""header":{"children":[{},{}]}}"#
        let view = try buildView(json)
        #expect(view.body.map(\.identifier) == ["UnknownComponent:body.0", "UnknownComponent:body.1"])
        #expect(view.overlays.map(\.identifier) == ["UnknownComponent:overlay.0"])
        #expect(view.header?.children.map(\.identifier) == ["UnknownComponent:header.0", "UnknownComponent:header.1"])
        // Deterministic: the same document gives the same ids every time.
        #expect(try buildView(json) == view)
        #expect(try roundTrip(json) == view.jsonString)
        // A second document with id-less items appends, never merges.
        let twice = try buildView(documents: [json, json])
        #expect(twice.body.count == 4)
        #expect(twice.body.map(\.identifier).last == "UnknownComponent:body.3")
    }

    @Test("S16 a generated id never collides with an explicit one")
    func s16Collision() throws {
        let view = try buildView(#"{"body":[{"id":"UnknownComponent:body.0","text":{"title":"explicit"}},{"text":{"title":"generated"}}]}"#)
        #expect(view.body.map(\.identifier) == ["UnknownComponent:body.0", "UnknownComponent:body.1"])
        #expect(view.body.map(\.title) == ["explicit", "generated"])
    }

    @Test("S17 header: created with the JSON id or 'header'; later documents merge regardless of id")
    func s17() throws {
        let withID = try buildView(#"{"header":{"id":"h1","text":{"title":"A"}}}"#)
        #expect(withID.header?.identifier == "h1")
        #expect(withID.header?.type == .header)

        let merged = try buildView(documents: [
            #"{"header":{"id":"h1","text":{"title":"A"}}}"#,
            #"{"header":{"id":"h2","text":{"subtitle":"B"}}}"#,
        ])
        #expect(merged.header?.identifier == "h1")
        #expect(merged.header?.title == "A")
        #expect(merged.header?.subtitle == "B")

        let empty = try buildView(#"{"header":{}}"#, defaults: testDefaults)
        #expect(empty.header?.identifier == "header")
        #expect(empty.header?.componentIdentifier == testDefaults.componentIdentifier)
        #expect(empty.header?.componentCategory == "category")
        #expect(empty.header?.index == 0)
    }

    // MARK: - Targets and images

    @Test("S18 actions need exactly one ':'")
    func s18() throws {
        let model = try buildComponent(
            #"{"target":{"actions":["invalidAction","a:b:c","valid:action","",":",5,null,"ns:"]}}"#)
        #expect(model.target?.actionIdentifiers.map(\.identifierString) == ["valid:action", ":", "ns:"])
    }

    @Test("S18 an action whose name holds ':' (possible in code) is written but dropped when read back")
    func s18RoundTrip() throws {
        var builder = ViewModelBuilder()
        builder.body["a"].withTarget { $0.addAction(namespace: "cart", name: "add:1") }
        let text = builder.build().jsonString
        #expect(text.contains(#""actions":["cart:add:1"]"#))
        #expect(try buildView(text).body[0].target?.actionIdentifiers.isEmpty == true)
    }

    @Test("S19 actions are an ordered set: duplicates dropped, first wins")
    func s19() throws {
        let model = try buildComponent(#"{"target":{"actions":["b:x","a:y","b:x","a:y","c:z"]}}"#)
        #expect(model.target?.actionIdentifiers.map(\.identifierString) == ["b:x", "a:y", "c:z"])
    }

    @Test("S20 a target exists iff 'target' held an object (even {})")
    func s20() throws {
        #expect(try buildComponent(#"{"target":{}}"#).target == ComponentTarget())
        #expect(try buildComponent(#"{}"#).target == nil)
        #expect(try buildComponent(#"{"target":[]}"#).target == nil)
    }

    @Test("S21 target.initialViewModel is nil unless 'view' was an object")
    func s21() throws {
        #expect(try buildComponent(#"{"target":{"uri":"u"}}"#).target?.initialViewModel == nil)
        #expect(try buildComponent(#"{"target":{"view":"v"}}"#).target?.initialViewModel == nil)
        let model = try buildComponent(#"{"target":{"view":{"title":"Next","body":[{"id":"x"}]}}}"#)
        #expect(model.target?.initialViewModel?.title == "Next")
        #expect(model.target?.initialViewModel?.body.map(\.identifier) == ["x"])
    }

    @Test("S22 image data is built only when it holds something; placeholder alone counts (DESIGN: no resolver)")
    func s22() throws {
        #expect(try buildComponent(#"{"images":{"main":{}}}"#).mainImageData == nil)
        #expect(try buildComponent(#"{"images":{"main":{"custom":{}}}}"#).mainImageData == nil)
        #expect(try buildComponent(#"{"images":{"main":{"uri":"https://x"}}}"#).mainImageData?.uri == "https://x")
        #expect(try buildComponent(#"{"images":{"main":{"local":"bundled"}}}"#).mainImageData?.localImageName == "bundled")
        #expect(try buildComponent(#"{"images":{"main":{"placeholder":"p"}}}"#).mainImageData?.placeholder == "p")
        #expect(try buildComponent(#"{"images":{"background":{"custom":{"k":1}}}}"#).backgroundImageData?.customData == ["k": 1])
    }

    @Test("S23 icons are kept without a resolver (DESIGN decision; upstream drops them)")
    func s23() throws {
        let model = try buildComponent(#"{"images":{"icon":"heart"}}"#)
        #expect(model.icon == "heart")
        #expect(model.mainImageData == nil)
    }

    @Test("S24 image uri, placeholder, local and custom are all applied")
    func s24() throws {
        let model = try buildComponent(
            #"{"images":{"main":{"uri":"https://m","placeholder":"p","local":"l","custom":{"k":"v"}}}}"#)
        let image = try #require(model.mainImageData)
        #expect(image == ComponentImageData(type: .main, uri: "https://m", placeholder: "p", localImageName: "l", customData: ["k": "v"]))
        #expect(image.identifier == nil)
    }

    static let fullComponent = #"""
        {"id":"ignored","group":"g","component":{"id":"ns:name","category":"card"},
         "text":{"title":"T","subtitle":"S","accessory":"A","description":"D"},
         "images":{"main":{"uri":"https://main","placeholder":"pm"},"background":{"uri":"https://bg","placeholder":"pb"},
                   "icon":"ic","custom":{"x":{"uri":"https://x","placeholder":"px"}}},
         "target":{"uri":"https://target","view":{"title":"Initial"},"actions":["a:one","a:two"],"custom":{"tc":1}},
         "metadata":{"m":1},"logging":{"l":2},"custom":{"c":3},
         "children":[{"id":"child1","component":{"id":"cns:c1","category":"c1cat"}},
                     {"id":"child2","component":{"id":"cns:c2","category":"c2cat"}}]}
        """#
}
