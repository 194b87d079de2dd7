import HubModel
import Testing

/// Compact view models (what a held session keeps: the JSON it serves) and the compact
/// storage of component models.
@Suite("Compact view models")
struct CompactViewModelTests {
    /// A view that sets every field a component can carry, nested children and a target view.
    static let full = """
        {"id":"v","title":"Everything","header":{"id":"h","component":{"id":"app:header","category":"header"},
         "text":{"title":"Header title long enough for the heap"}},
         "body":[
          {"id":"a","group":"g","component":{"id":"app:row","category":"row"},
           "text":{"title":"A title that lives on the heap","subtitle":"sub","accessory":"acc","description":"desc"},
           "images":{"main":{"uri":"https://example.com/a.png","placeholder":"p"},"background":{"local":"bg"},
                     "icon":"star","custom":{"badge":{"uri":"https://example.com/b.png","custom":{"k":1}}}},
           "target":{"uri":"app:a","view":{"title":"Next"},"actions":["app:open","app:log"],"custom":{"t":true}},
           "metadata":{"m":"v"},"logging":{"l":[1,2.5,"x"]},"custom":{"c":{"deep":null}},
           "children":[{"id":"a1","component":{"id":"app:cell","category":"cell"},
                        "children":[{"id":"a1x","component":{"id":"app:cell","category":"cell"},"text":{"title":"x"}}]},
                       {"id":"a2","component":{"id":"app:cell","category":"cell"}}]},
          {"id":"b","component":{"id":"app:row","category":"row"},"text":{"title":"plain"}}],
         "overlays":[{"id":"o","component":{"id":"app:toast","category":"toast"},"text":{"title":"Saved"}}],
         "custom":{"count":2}}
        """

    @Test("A compact view model serves the same bytes, compares equal and reads back every field")
    func roundTrip() throws {
        let built = try buildView(Self.full)
        let compact = built.compacted()
        #expect(compact.isCompact && !built.isCompact)
        #expect(compact.jsonBytes() == built.jsonBytes())
        #expect(compact.compactBytes == built.jsonBytes())
        #expect(compact.compacted() === compact)
        #expect(compact == built && built == compact)
        let expanded = compact.expanded
        #expect(!expanded.isCompact)
        #expect(expanded.identifier == "v" && expanded.title == "Everything" && expanded.customData == ["count": 2])
        #expect(expanded.header == built.header && expanded.body == built.body && expanded.overlays == built.overlays)
        // Index paths are not stored per component: they come back the same for nested children.
        let nested = try #require(expanded.component(withIdentifier: "a1x"))
        #expect(nested.indexPath == [0, 0, 0] && nested.index == 0)
        #expect(compact.component(withIdentifier: "a2")?.indexPath == [0, 1])
        #expect(compact.component(withIdentifier: "b")?.indexPath == [1])
        let row = try #require(compact.component(withIdentifier: "a"))
        #expect(row.groupIdentifier == "g" && row.subtitle == "sub" && row.accessoryTitle == "acc")
        #expect(row.descriptionText == "desc" && row.icon == "star")
        #expect(row.mainImageData?.uri == "https://example.com/a.png" && row.backgroundImageData?.localImageName == "bg")
        #expect(row.customImage(named: "badge")?.customData == ["k": 1])
        #expect(row.target?.uri == "app:a" && row.target?.initialViewModel?.title == "Next")
        #expect(row.target?.actionIdentifiers == ["app:open", "app:log"] && row.target?.customData == ["t": true])
        #expect(row.metadata == ["m": "v"] && row.loggingData != nil && row.customData != nil)
    }

    @Test("A changed view is not equal to the compact one; two compact ones with other bytes compare content")
    func inequality() throws {
        let built = try buildView(Self.full)
        let other = try buildView(#"{"body":[{"id":"b","text":{"title":"plain"}}]}"#)
        #expect(built.compacted() != other.compacted())
        #expect(built.compacted() != other)
        // The same content with custom keys in another order: other bytes, equal view models.
        let one = try buildView(#"{"custom":{"a":1,"b":2}}"#), two = try buildView(#"{"custom":{"b":2,"a":1}}"#)
        #expect(one.compacted().compactBytes != two.compacted().compactBytes)
        #expect(one.compacted() == two.compacted())
    }

    @Test("A compact view model written inside another writes its bytes as they are")
    func embedded() throws {
        let inner = try buildView(#"{"title":"Inner","body":[{"id":"r","text":{"title":"row"}}]}"#)
        func outer(_ view: ViewModel) -> ViewModel {
            ViewModel(body: [
                ComponentModel(
                    identifier: "link", type: .body, componentIdentifier: "app:link", componentCategory: "row",
                    target: ComponentTarget(uri: "app:next", initialViewModel: view))
            ])
        }
        #expect(outer(inner.compacted()).jsonString == outer(inner).jsonString)
        #expect(ViewModel().compacted().isEmpty && !inner.compacted().isEmpty)
    }

    @Test("A diff reads compact view models as the built ones")
    func diff() throws {
        let old = try buildView(#"{"body":[{"id":"c1"},{"id":"c2"},{"id":"c3"}]}"#)
        let new = try buildView(#"{"body":[{"id":"c2"},{"id":"c3","text":{"title":"t"}},{"id":"c4"}]}"#)
        let expected = ViewModelDiff(from: old, to: new)
        let compact = ViewModelDiff(from: old.compacted(), to: new.compacted())
        #expect(compact.deletedBodyIndexes == expected.deletedBodyIndexes)
        #expect(compact.insertedBodyIndexes == expected.insertedBodyIndexes)
        #expect(compact.reloadedBodyIndexes == expected.reloadedBodyIndexes)
        #expect(compact.hasChanges)
    }

    @Test("A compact view model's estimate follows its JSON bytes; a built one's is larger")
    func estimate() throws {
        let rows = (0..<50).map { #"{"id":"row-\#($0)","text":{"title":"Row \#($0): a title long enough for the heap"}}"# }
        let built = try buildView(#"{"body":["# + rows.joined(separator: ",") + "]}")
        let compact = built.compacted()
        let bytes = built.jsonBytes().count
        #expect(compact.estimatedMemoryBytes >= bytes && compact.estimatedMemoryBytes < bytes + 256)
        #expect(built.estimatedMemoryBytes > compact.estimatedMemoryBytes + bytes / 2)
    }

    @Test("A component made with the public initializer keeps every field and its index path")
    func componentInitializer() {
        let image = ComponentImageData(type: .main, uri: "https://example.com/i.png")
        let component = ComponentModel(
            identifier: "c", type: .overlay, index: 3, indexPath: [1, 2, 3], groupIdentifier: "g",
            componentIdentifier: "a:b", componentCategory: "cat", title: "t", subtitle: "s", accessoryTitle: "a",
            descriptionText: "d", mainImageData: image, icon: "i", target: ComponentTarget(actionIdentifiers: ["x:y"]),
            metadata: ["m": 1])
        #expect(component.index == 3 && component.indexPath == [1, 2, 3] && component.type == .overlay)
        #expect(component.groupIdentifier == "g" && component.title == "t" && component.subtitle == "s")
        #expect(component.accessoryTitle == "a" && component.descriptionText == "d" && component.icon == "i")
        #expect(component.mainImageData == image && component.backgroundImageData == nil && component.customImageData.isEmpty)
        #expect(component.target?.actionIdentifiers == ["x:y"] && component.metadata == ["m": 1])
        #expect(component.loggingData == nil && component.customData == nil)
        let bare = ComponentModel(identifier: "c", type: .body, index: 4, componentIdentifier: "a:b", componentCategory: "cat")
        #expect(bare.indexPath == [4] && bare.target == nil && bare.subtitle == nil)
    }
}
