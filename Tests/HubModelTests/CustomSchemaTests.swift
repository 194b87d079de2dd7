import HubModel
import Testing

/// Custom schemas as declarative paths (DESIGN.md "Config/schemas"): reference §6, S159..S172,
/// adapted from HubFramework's code-built paths to data. Paths and `first` replace
/// `goTo`/`forEach`/`combineWithPath`; `runBlock` (arbitrary code) has no data form.
@Suite("Custom schemas (S159..S172)")
struct CustomSchemaTests {
    static func schema(_ json: String) throws -> JSONSchema {
        try JSONSchema(json: try parseJSON(json))
    }

    static func schemaError(_ json: String, identifier: String? = nil) throws -> JSONSchemaError? {
        do {
            _ = try JSONSchema(json: try parseJSON(json), identifier: identifier)
            return nil
        } catch let error as JSONSchemaError {
            return error
        }
    }

    /// DESIGN.md's example schema, verbatim.
    static let itemsSchema = #"""
        { "id": "items",
          "view":      { "title": ["data", "name"], "body": ["data", "items", "*"] },
          "component": { "id": ["uuid"], "text.title": { "first": [["name"], ["title"]] },
                         "images.main.uri": ["artwork", "url"], "component.id": ["type"] } }
        """#

    @Test("DESIGN example schema parses upstream data into the model; output uses the default keys (S35, S164)")
    func designExample() throws {
        let schema = try Self.schema(Self.itemsSchema)
        #expect(schema.identifier == "items")
        #expect(!schema.isDefault)
        let data = #"""
            {"data":{"name":"Shop","items":[
              {"uuid":"u1","name":"One","artwork":{"url":"https://img/1.jpg"},"type":"card"},
              {"uuid":"u2","title":"Two","artwork":{"url":"not a uri"}},
              {"name":5,"title":"Three"},
              "junk"]}}
            """#
        let view = try buildView(data, schema: schema)
        #expect(view.title == "Shop")
        #expect(view.body.map(\.identifier) == ["u1", "u2", "UnknownComponent:body.0"])
        #expect(view.body.map(\.title) == ["One", "Two", "Three"])
        #expect(view.body[0].mainImageData?.uri == "https://img/1.jpg")
        #expect(view.body[1].mainImageData == nil, "S9: an invalid URI is dropped")
        #expect(view.body[0].componentIdentifier == ComponentIdentifier(namespace: "default", name: "card"), "S11")
        #expect(
            view.jsonString
                == #"{"title":"Shop","body":[{"id":"u1","component":{"id":"default:card","category":"row"},"text":{"title":"One"},"images":{"main":{"uri":"https://img/1.jpg"}}},{"id":"u2","component":{"id":"default:row","category":"row"},"text":{"title":"Two"}},{"id":"UnknownComponent:body.0","component":{"id":"default:row","category":"row"},"text":{"title":"Three"}}]}"#)
    }

    @Test("a root array is a list of body components in the custom component schema (S2)")
    func rootArray() throws {
        let view = try buildView(#"[{"uuid":"a","name":"A"},7,{"uuid":"b","title":"B"}]"#, schema: try Self.schema(Self.itemsSchema))
        #expect(view.body.map(\.identifier) == ["a", "b"])
        #expect(view.body.map(\.title) == ["A", "B"])
    }

    @Test("merge rules hold under a custom schema: same id merges in place (S29), absent keys keep values (S26)")
    func mergeRules() throws {
        var builder = ViewModelBuilder()
        let schema = try Self.schema(Self.itemsSchema)
        try builder.addJSON(Array(#"{"data":{"name":"Shop","items":[{"uuid":"a","name":"A"},{"uuid":"b","name":"B"}]}}"#.utf8), schema: schema)
        try builder.addJSON(Array(#"{"data":{"items":[{"uuid":"c"},{"uuid":"a","artwork":{"url":"https://a"}}]}}"#.utf8), schema: schema)
        let view = builder.build()
        #expect(view.title == "Shop")
        #expect(view.body.map(\.identifier) == ["a", "b", "c"])
        #expect(view.body[0].title == "A")
        #expect(view.body[0].mainImageData?.uri == "https://a")
    }

    @Test("S159 a schema that maps nothing parses exactly like the default schema")
    func s159() throws {
        let copy = try Self.schema(#"{"id":"copy"}"#)
        #expect(!copy.isDefault)
        #expect(copy.paths == JSONSchema.default.paths)
        let viaCopy = try buildView(GoldenFixtureTests.fixture, schema: copy)
        let viaDefault = try buildView(GoldenFixtureTests.fixture)
        #expect(viaCopy == viaDefault)
        #expect(viaCopy.jsonString == viaDefault.jsonString)
        let odd = #"{"body":[{"id":"a","component":"x:y","text":{"title":5},"images":{"custom":{"k":"v","j":{"uri":"https://j"}}},"target":{"actions":["a:b",1,"bad"]},"children":[{"id":"c"},2]},"skip"],"custom":{"k":[1]}}"#
        #expect(try buildView(odd, schema: copy) == (try buildView(odd)))
    }

    @Test("S159 nested arrays in multi-valued fields are skipped exactly as the default schema skips them")
    func s159NestedArrays() throws {
        let copy = try Self.schema(#"{"id":"copy"}"#)
        let json = #"{"body":[[{"id":"a"}],{"id":"b"}],"overlays":[{"id":"o","target":{"actions":["a:b",["c:d"]]},"children":[[{"id":"c"}]]}]}"#
        let viaCopy = try buildView(json, schema: copy)
        #expect(viaCopy == (try buildView(json)))
        #expect(viaCopy.body.map(\.identifier) == ["b"])
        #expect(viaCopy.overlays[0].target?.actionIdentifiers == ["a:b"])
        #expect(viaCopy.overlays[0].children.isEmpty)
        // A path ending on the array itself (no "*") still takes its elements.
        let direct = try Self.schema(#"{"id":"d","view":{"body":["items"]}}"#)
        #expect(try buildView(#"{"items":[{"id":"x"},[{"id":"nested"}]]}"#, schema: direct).body.map(\.identifier) == ["x"])
    }

    @Test("S161 a copy under another id parses identically")
    func s161() throws {
        let original = try Self.schema(#"{"id":"custom","view":{"title":["customTitle"]}}"#)
        let copy = original.copy(identifier: "copied")
        #expect(copy.identifier == "copied")
        let json = #"{"customTitle":"Hub it up!","title":"ignored"}"#
        #expect(try buildView(json, schema: original).title == "Hub it up!")
        #expect(try buildView(json, schema: copy).title == "Hub it up!")
    }

    @Test("S162 schemas are values: a copy is independent and equal in paths")
    func s162() throws {
        let original = try Self.schema(#"{"id":"custom","image":{"uri":["href"]}}"#)
        let copy = original.copy(identifier: "other")
        #expect(copy.paths == original.paths)
        #expect(copy != original, "the identifiers differ")
        #expect(original.identifier == "custom")
        #expect(JSONSchema.default.isDefault)
        #expect(JSONSchema.default.copy(identifier: "d2").isDefault == false)
    }

    @Test("S164 the target's view and all nested components use the same custom schema")
    func s164() throws {
        let schema = try Self.schema(#"""
            {"id":"nested","view":{"body":["entries"]},
             "component":{"id":["key"],"text.title":["label"],"children":["subs","*"],"target":["link"]},
             "target":{"uri":["href"],"view":["next"],"actions":["do"]}}
            """#)
        let json = #"""
            {"entries":[{"key":"a","label":"A",
               "subs":[{"key":"a1","label":"A1"}],
               "link":{"href":"https://next","do":["x:y"],"next":{"entries":[{"key":"n","label":"N"}]}}}]}
            """#
        let view = try buildView(json, schema: schema)
        let a = try #require(view.body.first)
        #expect(a.title == "A")
        #expect(a.children.map(\.title) == ["A1"])
        #expect(a.target?.uri == "https://next")
        #expect(a.target?.actionIdentifiers == ["x:y"])
        #expect(a.target?.initialViewModel?.body.map(\.title) == ["N"])
        let output = try parseJSON(view.jsonString)
        #expect(output["body"]?.arrayValue?.first?["target"]?["view"]?["body"]?.arrayValue?.first?["text"]?["title"] == "N",
                "output is the default schema")
    }

    @Test("S165 a key step needs an object holding the key; otherwise the branch yields nothing")
    func s165() throws {
        let schema = try Self.schema(#"{"id":"s","view":{"title":["data","name"]}}"#)
        #expect(try buildView(#"{"data":{"name":"N"}}"#, schema: schema).title == "N")
        #expect(try buildView(#"{"data":{"other":"N"}}"#, schema: schema).title == nil)
        #expect(try buildView(#"{"data":["name"]}"#, schema: schema).title == nil)
        #expect(try buildView(#"{"data":"name"}"#, schema: schema).title == nil)
        #expect(try buildView(#"{"title":"default key is not used"}"#, schema: schema).title == nil)

        let path = JSONPath(keys: "a", "b")
        #expect(path.values(in: ["a": ["b": 1]], accepting: { _ in true }) == [1])
        #expect(path.values(in: ["a": 1], accepting: { _ in true }).isEmpty)
    }

    @Test("S166 '*' fans out over an array: [{title:one},{title:two}] gives [one, two]")
    func s166() throws {
        let path = try JSONPath(json: ["array", "*", "title"], location: "test")
        let values = path.values(in: ["array": [["title": "one"], ["title": "two"], ["other": 3]]], accepting: { _ in true })
        #expect(values == ["one", "two"])
        #expect(path.values(in: ["array": ["title": "x"]], accepting: { _ in true }).isEmpty, "not an array: nothing")

        let schema = try Self.schema(#"{"id":"s","target":{"actions":["groups","*","actions","*"]}}"#)
        let model = try buildView(#"{"body":[{"id":"a","target":{"groups":[{"actions":["a:1","a:2"]},{"actions":["b:1"]}]}}]}"#, schema: schema)
        #expect(model.body[0].target?.actionIdentifiers == ["a:1", "a:2", "b:1"])
    }

    @Test("S167 the destination type filters each element: ['hello', 15] gives ['hello']; [] and missing give []")
    func s167() throws {
        let path = try JSONPath(json: ["list", "*"], location: "test")
        let isString: (JSONValue) -> Bool = { $0.stringValue != nil }
        #expect(path.values(in: ["list": ["hello", 15]], accepting: isString) == ["hello"])
        #expect(path.values(in: ["list": []], accepting: isString).isEmpty)
        #expect(path.values(in: ["list": "hello"], accepting: isString).isEmpty)
        #expect(path.values(in: ["other": 1], accepting: isString).isEmpty)

        let schema = try Self.schema(#"{"id":"s","view":{"body":["items"]},"target":{"actions":["acts","*"]}}"#)
        let view = try buildView(#"{"items":[{"id":"a","target":{"acts":["n:a",15,null,"n:b"]}},5,"x",{"id":"b"}]}"#, schema: schema)
        #expect(view.body.map(\.identifier) == ["a", "b"], "non-objects dropped from an objects field")
        #expect(view.body[0].target?.actionIdentifiers == ["n:a", "n:b"])
    }

    @Test("S168 when nothing matches, fields stay unset")
    func s168() throws {
        let schema = try Self.schema(#"{"id":"s","view":{"id":["x"],"title":["y"],"body":["z"],"custom":["w"]}}"#)
        let view = try buildView(#"{"id":"v","title":"t","body":[{"id":"a"}],"custom":{"k":1}}"#, schema: schema)
        #expect(view == ViewModel.empty)
    }

    @Test("S170 the final type check applies: a string field reaching an object or array yields nothing")
    func s170() throws {
        let schema = try Self.schema(#"{"id":"s","view":{"title":["t"],"custom":["c"]}}"#)
        #expect(try buildView(#"{"t":{"a":1},"c":"notAnObject"}"#, schema: schema) == ViewModel.empty)
        #expect(try buildView(#"{"t":["a"]}"#, schema: schema).title == nil)
        #expect(try buildView(#"{"t":5}"#, schema: schema).title == nil)
        // Extending an object path with a key works.
        let deeper = try Self.schema(#"{"id":"s","view":{"custom":["meta","custom"]}}"#)
        #expect(try buildView(#"{"meta":{"custom":{"k":1}}}"#, schema: deeper).customData == ["k": 1])
    }

    @Test("S171 'first' takes the first alternative that yields an accepted value (key-rename fallback)")
    func s171() throws {
        let schema = try Self.schema(#"{"id":"s","component":{"id":{"first":[["id"],["identifier"]]}}}"#)
        let view = try buildView(
            #"{"body":[{"id":"preferred","identifier":"fallback"},{"identifier":"renamed"},{"id":5,"identifier":"typed"},{}]}"#,
            schema: schema)
        #expect(view.body.map(\.identifier) == ["preferred", "renamed", "typed", "UnknownComponent:body.0"])

        // A multi-valued field takes every value of the first alternative that yields any.
        let path = try JSONPath(json: [["first": [["A"], ["B"]]]], location: "t")
        #expect(path.values(in: ["A": "valueA", "B": "valueB"], accepting: { _ in true }) == ["valueA"])
        #expect(path.values(in: ["B": "valueB"], accepting: { _ in true }) == ["valueB"])
        // 'first' continues with the steps after it.
        let continued = try JSONPath(json: [["first": [["a"], ["b"]]], "name"], location: "t")
        #expect(continued.values(in: ["a": ["x": 1], "b": ["name": "n"]], accepting: { _ in true }) == ["n"])
    }

    @Test("S172 paths are values; their config form round-trips")
    func s172() throws {
        let json: JSONValue = ["data", "items", "*", ["first": [["name"], ["title", "text"]]]]
        let path = try JSONPath(json: json, location: "t")
        #expect(path.jsonValue == json)
        #expect(try JSONPath(json: path.jsonValue, location: "t") == path)
        #expect(path.description == #"["data","items","*",{"first":[["name"],["title","text"]]}]"#)
        var extended = path
        extended.steps.append(.key("more"))
        #expect(extended != path)
        #expect(path.steps.count == 4)
        #expect(JSONPath(keys: "a", "b") == JSONPath([.key("a"), .key("b")]))
    }

    // MARK: - Schema declaration errors

    @Test("schema declaration errors name their location")
    func errors() throws {
        let cases: [(String, String)] = [
            (#"["x"]"#, "$"),
            (#"{"view":{}}"#, "id"),
            (#"{"id":"default"}"#, "id"),
            (#"{"id":""}"#, "id"),
            (#"{"id":5}"#, "id"),
            (#"{"id":"x","views":{}}"#, "views"),
            (#"{"id":"x","view":[]}"#, "view"),
            (#"{"id":"x","component":{"text.titel":["a"]}}"#, "component.text.titel"),
            (#"{"id":"x","image":{"url":["a"]}}"#, "image.url"),
            (#"{"id":"x","view":{"title":"name"}}"#, "view.title"),
            (#"{"id":"x","view":{"title":[1]}}"#, "view.title[0]"),
            (#"{"id":"x","view":{"title":[{"first":[]}]}}"#, "view.title[0]"),
            (#"{"id":"x","view":{"title":[{"first":[["a"]],"extra":1}]}}"#, "view.title[0]"),
            (#"{"id":"x","view":{"title":[{"first":[["a"],[2]]}]}}"#, "view.title[0].first[1][0]"),
            (#"{"id":"x","target":{"uri":[null]}}"#, "target.uri[0]"),
        ]
        for (json, location) in cases {
            let error = try Self.schemaError(json)
            #expect(error?.location == location, "\(json)")
        }
        let unknown = try #require(try Self.schemaError(#"{"id":"x","component":{"text.titel":["a"]}}"#))
        #expect(unknown.message.contains("text.title"), "lists the known fields")
        #expect(unknown.description.hasPrefix("component.text.titel: "))
    }

    @Test("the schema id may come from the caller (e.g. the file name)")
    func identifierFallback() throws {
        let schema = try JSONSchema(json: ["view": ["title": ["name"]]], identifier: "fromFile")
        #expect(schema.identifier == "fromFile")
        let overridden = try JSONSchema(json: ["id": "inside"], identifier: "fromFile")
        #expect(overridden.identifier == "inside")
    }

    @Test("a lone {first: [...]} is a one-step path (DESIGN example form); bad forms are errors")
    func loneFirst() throws {
        let schema = try Self.schema(#"{"id":"x","view":{"title":{"first":[["a"],["b"]]}}}"#)
        #expect(try buildView(#"{"b":"B"}"#, schema: schema).title == "B")
        #expect(try Self.schemaError(#"{"id":"x","view":{"title":{"other":[["a"]]}}}"#) != nil)
        #expect(try Self.schemaError(#"{"id":"x","view":{"title":{"first":5}}}"#) != nil)
    }

    @Test("component shortcuts into images and target override the nested objects")
    func shortcuts() throws {
        let schema = try Self.schema(#"""
            {"id":"x","component":{"images.background.placeholder":["ph"],"target.uri":["href"],"target.actions":["acts"]}}
            """#)
        let view = try buildView(
            #"{"body":[{"id":"a","ph":"p","href":"https://h","acts":["a:b","c:d"],"images":{"background":{"uri":"https://bg","placeholder":"old"}},"target":{"uri":"https://old","custom":{"k":1}}}]}"#,
            schema: schema)
        let a = view.body[0]
        #expect(a.backgroundImageData?.placeholder == "p")
        #expect(a.backgroundImageData?.uri == "https://bg")
        #expect(a.target?.uri == "https://h")
        #expect(a.target?.actionIdentifiers == ["a:b", "c:d"])
        #expect(a.target?.customData == ["k": 1])
    }
}
