import HubModel
import Testing

/// ``ViewPatch`` on its own: every patch is applied with the test-only ``JSONPatchApplier`` and
/// must give exactly the new view's JSON.
@Suite("View patches (RFC 6902 from the id-keyed diff)")
struct ViewPatchTests {
    static func view(_ text: String) throws -> (model: ViewModel, json: JSONValue) {
        var builder = ViewModelBuilder()
        try builder.add(json: try JSONParser().parse(text))
        let model = builder.build()
        return (model, try JSONParser(options: .init(maxDepth: 4096)).parse(model.jsonBytes()))
    }

    static func expectPatch(from old: String, to new: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONValue] {
        let (oldModel, oldJSON) = try view(old)
        let (newModel, newJSON) = try view(new)
        let patch = try #require(ViewPatch(from: oldModel, oldJSON, to: newModel, newJSON), sourceLocation: sourceLocation)
        #expect(try JSONPatchApplier.apply(patch.json, to: oldJSON) == newJSON, sourceLocation: sourceLocation)
        return patch.operations
    }

    @Test("an edited component is replaced at its index, an added one inserted, a removed one removed")
    func basics() throws {
        let operations = try Self.expectPatch(
            from: #"{"body":[{"id":"a","text":{"title":"A"}},{"id":"b"},{"id":"c"}]}"#,
            to: #"{"body":[{"id":"a","text":{"title":"A2"}},{"id":"new"},{"id":"c"}]}"#)
        #expect(operations.map { $0["op"]?.stringValue } == ["replace", "remove", "add"])
        #expect(operations[0]["path"]?.stringValue == "/body/0")
    }

    @Test("a moved component is moved (no value sent), and replaced too when its content changed")
    func moves() throws {
        let moved = try Self.expectPatch(
            from: #"{"body":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#,
            to: #"{"body":[{"id":"d"},{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        #expect(moved.map { $0["op"]?.stringValue } == ["move"])
        #expect(moved[0]["value"] == nil)
        let movedAndEdited = try Self.expectPatch(
            from: #"{"body":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#,
            to: #"{"body":[{"id":"c","text":{"title":"C"}},{"id":"a"},{"id":"b"}]}"#)
        #expect(movedAndEdited.map { $0["op"]?.stringValue } == ["move", "replace"])
    }

    @Test("title, header, overlays and custom data are added, replaced or removed whole")
    func topLevelFields() throws {
        let operations = try Self.expectPatch(
            from: #"{"title":"T","header":{"id":"h","text":{"title":"H"}},"body":[{"id":"a"}],"custom":{"n":1}}"#,
            to: #"{"body":[{"id":"a"}],"overlays":[{"id":"o"}],"custom":{"n":2},"header":{"id":"h","text":{"title":"H2"}}}"#)
        #expect(Set(operations.compactMap { $0["path"]?.stringValue }) == ["/title", "/header", "/overlays", "/custom"])
        _ = try Self.expectPatch(from: #"{"body":[{"id":"a"}]}"#, to: #"{"title":"Only a title"}"#)
        _ = try Self.expectPatch(from: #"{}"#, to: #"{"body":[{"id":"a"},{"id":"b"}]}"#)
    }

    @Test("random bodies: every patch applies to exactly the next view")
    func randomBodies() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            func body() -> String {
                let ids = (0..<12).map { "c\($0)" }.shuffled(using: &generator).prefix(Int.random(in: 0...12, using: &generator))
                return "[" + ids.map { id in
                    Bool.random(using: &generator) ? #"{"id":"\#(id)"}"# : #"{"id":"\#(id)","text":{"title":"\#(id) \#(Int.random(in: 0...2, using: &generator))"}}"#
                }.joined(separator: ",") + "]"
            }
            let old = #"{"body":\#(body())}"#
            let new = #"{"body":\#(body())}"#
            let (oldModel, oldJSON) = try Self.view(old)
            let (newModel, newJSON) = try Self.view(new)
            // A patch past its operation budget is nil (the whole view goes instead): never wrong.
            if let patch = ViewPatch(from: oldModel, oldJSON, to: newModel, newJSON) {
                #expect(try JSONPatchApplier.apply(patch.json, to: oldJSON) == newJSON, "\(old) -> \(new)")
            }
        }
    }

    @Test("JSON that is not the models' view gets no patch")
    func mismatch() throws {
        let (oldModel, oldJSON) = try Self.view(#"{"body":[{"id":"a"}]}"#)
        let (newModel, newJSON) = try Self.view(#"{"body":[{"id":"b"}]}"#)
        #expect(ViewPatch(from: oldModel, newJSON, to: newModel, newJSON) == nil)
        #expect(ViewPatch(from: oldModel, oldJSON, to: newModel, .array([])) == nil)
    }
}
