import HubModel
import Testing

/// The view model builder: reference §2.1, S47..S62, and S82.
@Suite("View model builder (S47..S62)")
struct ViewModelBuilderTests {
    @Test("S47 a fresh builder is empty, with no id and no title")
    func s47() {
        let builder = ViewModelBuilder()
        #expect(builder.identifier == nil)
        #expect(builder.title == nil)
        #expect(builder.isEmpty)
        let view = builder.build()
        #expect(view.title == nil)
        #expect(view == ViewModel.empty)
        #expect(view.jsonString == "{}")
    }

    @Test("S48 id, title and custom data reach the built view model")
    func s48() {
        var builder = ViewModelBuilder()
        builder.identifier = "view"
        builder.title = "Title"
        builder.customData = ["key": "value"]
        let view = builder.build()
        #expect(view.identifier == "view")
        #expect(view.title == "Title")
        #expect(view.customData == ["key": "value"])
    }

    @Test("S49 setCustomDataValue adds, replaces and removes keys")
    func s49() {
        var builder = ViewModelBuilder()
        builder.setCustomDataValue("v1", forKey: "k")
        builder.setCustomDataValue(2, forKey: "other")
        #expect(builder.build().customData == ["k": "v1", "other": 2])
        builder.setCustomDataValue("v2", forKey: "k")
        #expect(builder.build().customData?.orderedKeys == ["k", "other"], "replaced in place")
        builder.setCustomDataValue(nil, forKey: "k")
        builder.setCustomDataValue(nil, forKey: "other")
        #expect(builder.customData == [:], "the builder's dictionary may become empty")
        #expect(builder.build().customData == nil, "the model holds nil for an empty dictionary, as it is never written")
        #expect(builder.build().jsonString == "{}", "DESIGN: an empty custom is not written")

        var component = ComponentModelBuilder(identifier: "c", type: .body)
        component.setCustomDataValue(true, forKey: "flag")
        component.setCustomDataValue(nil, forKey: "missing")
        #expect(component.build().customData == ["flag": true])
    }

    @Test("S50 a built view model is a snapshot: later builder changes do not affect it")
    func s50() {
        var builder = ViewModelBuilder()
        builder.title = "before"
        builder.body["a"].title = "A"
        let view = builder.build()
        builder.title = "after"
        builder.body["a"].title = "changed"
        builder.body["b"].title = "B"
        #expect(view.title == "before")
        #expect(view.body.map(\.title) == ["A"])
    }

    @Test("S51 the header is get-or-create: id 'header', defaults, type header")
    func s51() {
        var builder = ViewModelBuilder(defaults: testDefaults)
        #expect(builder.header == nil)
        builder.withHeader { _ in }
        let header = builder.header
        #expect(header != nil)
        #expect(header?.identifier == "header")
        #expect(header?.type == .header)
        #expect(header?.componentNamespace == "namespace")
        #expect(header?.componentName == "name")
        #expect(header?.componentCategory == "category")
        // The same header is reused.
        builder.withHeader { $0.title = "one" }
        builder.withHeader(identifier: "ignored") { $0.subtitle = "two" }
        #expect(builder.header?.identifier == "header")
        #expect(builder.build().header?.title == "one")
        #expect(builder.build().header?.subtitle == "two")
    }

    @Test("S51/S72 a builder assigned as the header becomes a header, children included")
    func headerAssigned() {
        var builder = ViewModelBuilder()
        var body = ComponentModelBuilder(identifier: "hero", type: .body)
        body.children["c"].title = "c"
        builder.header = body
        let header = builder.build().header
        #expect(header?.identifier == "hero")
        #expect(header?.type == .header)
        #expect(header?.children.first?.type == .header)
    }

    @Test("S52 removing the header; the next access creates a fresh, empty one")
    func s52() {
        var builder = ViewModelBuilder()
        builder.withHeader { $0.title = "Title" }
        builder.removeHeader()
        #expect(builder.header == nil)
        #expect(builder.build().header == nil)
        builder.withHeader { _ in }
        #expect(builder.build().header?.title == nil)
    }

    @Test("S53 body builders are get-or-create by id; contains never creates")
    func s53() {
        var builder = ViewModelBuilder(defaults: testDefaults)
        #expect(!builder.body.contains("a"))
        _ = builder.body["a"]  // reading does not create
        #expect(!builder.body.contains("a"))
        #expect(builder.isEmpty)
        builder.body["a"].title = "A"
        #expect(builder.body.contains("a"))
        builder.body["a"].subtitle = "S"
        #expect(builder.body.count == 1, "same id, same builder")
        #expect(builder.body["a"].title == "A" && builder.body["a"].subtitle == "S")
        #expect(builder.body["a"].componentNamespace == "namespace")
        #expect(builder.body["a"].type == .body)
        builder.body.update("b") { $0.title = "B" }
        #expect(builder.body.identifiers == ["a", "b"])
    }

    @Test("S53/S182 a builder stored under another key takes that key's id and the list's type (no duplicate ids)")
    func storedUnderKey() {
        var builder = ViewModelBuilder()
        var header = ComponentModelBuilder(identifier: "b", type: .header)
        header.children["k"].title = "child"
        header.title = "moved"
        builder.body["a"] = header
        builder.body["b"].title = "b"
        let view = builder.build()
        #expect(view.body.map(\.identifier) == ["a", "b"])
        #expect(view.body.map(\.type) == [.body, .body])
        #expect(view.body[0].children.map(\.type) == [.body], "descendants take the type too (S72)")
        #expect(view.body[0].title == "moved")

        // Through in-place mutation and update(_:_:) as well.
        var list = ComponentBuilderList(type: .overlay)
        var other = ComponentModelBuilder(identifier: "zzz", type: .body)
        swap(&list["q"], &other)
        list.update("r") { $0 = ComponentModelBuilder(identifier: "q", type: .body) }
        #expect(list.identifiers == ["q", "r"])
        #expect(list.map(\.type) == [.overlay, .overlay])
        #expect(list.contains("q") && list.contains("r") && !list.contains("zzz"))
        #expect(list.build().map(\.identifier) == ["q", "r"])
    }

    @Test("S54 removal; unknown ids are a no-op; re-creating an id puts it at the end")
    func s54() {
        var builder = ViewModelBuilder()
        for id in ["a", "b", "c"] { builder.body[id].title = id }
        builder.body.remove("a")
        #expect(!builder.body.contains("a"))
        builder.body.remove("unknown")
        #expect(builder.body.identifiers == ["b", "c"])
        builder.body["a"].subtitle = "new"
        #expect(builder.body.identifiers == ["b", "c", "a"])
        #expect(builder.build().body.last?.title == nil, "a re-created builder starts empty")
        // Lookups stay right after removals.
        builder.body.remove("b")
        builder.body["c"].subtitle = "c2"
        #expect(builder.build().body.map(\.identifier) == ["c", "a"])
        #expect(builder.build().body.first?.subtitle == "c2")
    }

    @Test("S55 number of body and overlay builders")
    func s55() {
        var builder = ViewModelBuilder()
        for id in ["A", "B", "C"] {
            builder.body[id].title = id
            builder.overlays[id].title = id
        }
        #expect(builder.body.count == 3 && builder.overlays.count == 3)
        builder.body.remove("B")
        builder.overlays.remove("B")
        #expect(builder.body.count == 2 && builder.overlays.count == 2)
    }

    @Test("S56 builders iterate in creation order, ignoring preferredIndex")
    func s56() {
        var builder = ViewModelBuilder()
        builder.body["a"].preferredIndex = 2
        builder.body["b"].preferredIndex = 0
        builder.body["c"].title = "c"
        builder.overlays["x"].preferredIndex = 1
        builder.overlays["y"].preferredIndex = 0
        #expect(builder.body.map(\.identifier) == ["a", "b", "c"])
        #expect(builder.overlays.identifiers == ["x", "y"])
    }

    @Test("S57 overlay builders: get-or-create, exists and remove like body")
    func s57() {
        var builder = ViewModelBuilder()
        #expect(!builder.overlays.contains("o"))
        builder.overlays["o"].title = "O"
        #expect(builder.overlays.contains("o"))
        #expect(builder.overlays["o"].type == .overlay)
        #expect(builder.build().overlays.map(\.type) == [.overlay])
        builder.overlays.remove("o")
        #expect(!builder.overlays.contains("o"))
        #expect(builder.isEmpty)
    }

    @Test("S58 removeAllComponents removes header, body and overlays")
    func s58() {
        var builder = ViewModelBuilder()
        builder.identifier = "v"
        builder.withHeader { _ in }
        builder.body["a"].title = "A"
        builder.overlays["o"].title = "O"
        builder.removeAllComponents()
        #expect(builder.isEmpty)
        #expect(builder.identifier == "v", "the view's own fields stay")
        #expect(builder.build() == ViewModel(identifier: "v"))
    }

    @Test("S59 isEmpty turns false once any component builder exists; id, title and custom do not count")
    func s59() {
        var builder = ViewModelBuilder()
        builder.identifier = "v"
        builder.title = "t"
        builder.customData = ["k": 1]
        #expect(builder.isEmpty)
        var header = builder
        header.withHeader { _ in }
        #expect(!header.isEmpty)
        var body = builder
        body.body.update("a") { _ in }
        #expect(!body.isEmpty)
        var overlay = builder
        overlay.overlays.update("o") { _ in }
        #expect(!overlay.isEmpty)
    }

    @Test("S60 all component builders: header, then body, then overlays, each in creation order")
    func s60() {
        var builder = ViewModelBuilder()
        builder.overlays["o1"].title = "x"
        builder.body["b2"].title = "x"
        builder.body["b1"].preferredIndex = 0
        builder.withHeader { _ in }
        builder.overlays["o2"].title = "x"
        #expect(builder.allComponentBuilders.map(\.identifier) == ["header", "b2", "b1", "o1", "o2"])
        // Stopping early is a plain `break` in Swift (upstream's enumeration block returns NO).
        var seen: [String] = []
        for component in builder.allComponentBuilders {
            seen.append(component.identifier)
            if component.identifier == "b2" { break }
        }
        #expect(seen == ["header", "b2"])
    }

    @Test("S61 a copy is deep: mutating it never affects the original (value semantics, copy-on-write)")
    func s61() throws {
        var original = ViewModelBuilder()
        original.identifier = "v"
        original.title = "T"
        original.customData = ["k": 1]
        original.withHeader { $0.title = "H" }
        original.body["a"].title = "A"
        original.body["a"].children["c"].title = "C"
        original.body["b"].title = "B"
        original.overlays["o"].title = "O"
        let before = original.build()

        var copy = original
        #expect(copy.build() == before)
        copy.identifier = "v2"
        copy.customData?["k"] = 2
        copy.withHeader { $0.title = "H2" }
        copy.body["a"].title = "A2"
        copy.body["a"].children["c"].title = "C2"
        copy.body["a"].mainImageURI = "https://x"
        copy.body["a"].withTarget { $0.addAction(namespace: "n", name: "a") }
        copy.body["b"].preferredIndex = 0
        copy.body.remove("zzz")
        copy.body["new"].title = "N"
        copy.overlays.remove("o")

        #expect(original.build() == before, "the original is untouched")
        let changed = copy.build()
        #expect(changed.body.map(\.identifier) == ["b", "a", "new"], "order preserved, then preferred index applied")
        #expect(changed.body[1].children[0].title == "C2")
        #expect(changed.header?.title == "H2")
        // Mutating the original afterwards does not leak into the copy either.
        original.body["b"].title = "B-original"
        #expect(copy.body["b"].title == "B")
    }

    @Test("S61 a component builder copy is independent (copy-on-write box)")
    func s61Component() {
        var a = ComponentModelBuilder(identifier: "c", type: .body)
        a.title = "one"
        a[customImage: "x"] = ComponentImageDataBuilder(uri: "https://x")
        var b = a
        b.title = "two"
        b[customImage: "x"] = ComponentImageDataBuilder(uri: "https://y")
        b.children["k"].title = "child"
        #expect(a.title == "one")
        #expect(a[customImage: "x"].uri == "https://x")
        #expect(a.children.isEmpty)
        #expect(b.build().children.count == 1)
    }

    @Test("S61 snapshots can be mutated and built on other tasks without affecting each other")
    func s61Concurrent() async {
        var shared = ViewModelBuilder()
        for index in 0..<50 { shared.body["c\(index)"].title = "\(index)" }
        let snapshot = shared
        let results = await withTaskGroup(of: (Int, ViewModel).self) { group in
            for task in 0..<8 {
                group.addTask {
                    var copy = snapshot
                    copy.body["c\(task)"].title = "task \(task)"
                    copy.body["extra\(task)"].title = "extra"
                    return (task, copy.build())
                }
            }
            var results: [Int: ViewModel] = [:]
            for await (task, view) in group { results[task] = view }
            return results
        }
        #expect(shared.build() == snapshot.build())
        #expect(shared.build().body.count == 50)
        for (task, view) in results {
            #expect(view.body.count == 51)
            #expect(view.body[task].title == "task \(task)")
            #expect(view.body.filter { $0.title?.hasPrefix("task") == true }.count == 1)
        }
    }

    @Test("S62 building twice gives equal models and does not consume the builder")
    func s62() {
        var builder = ViewModelBuilder()
        builder.body["a"].title = "A"
        let first = builder.build()
        let second = builder.build()
        #expect(first == second)
        #expect(first !== second)
        #expect(first.jsonBytes() == second.jsonBytes())
        builder.body["b"].title = "B"
        #expect(builder.build().body.count == 2)
    }

    @Test("S82 view model equality compares content, including the title")
    func s82() {
        var builder = ViewModelBuilder()
        builder.title = "T"
        builder.body["a"].title = "A"
        let one = builder.build()
        #expect(one == builder.build())
        builder.title = "Other"
        #expect(one != builder.build())
        var custom = builder
        custom.title = "T"
        custom.customData = ["k": 1]
        #expect(one != custom.build())
        var overlays = builder
        overlays.title = "T"
        overlays.overlays["o"].title = "o"
        #expect(one != overlays.build())
    }

    @Test("view lookup by component id searches header, body and overlays depth-first")
    func componentLookup() {
        var builder = ViewModelBuilder()
        builder.withHeader { $0.children["hc"].title = "header child" }
        builder.body["a"].children["deep"].children["deeper"].title = "found"
        builder.overlays["o"].title = "overlay"
        let view = builder.build()
        #expect(view.component(withIdentifier: "deeper")?.title == "found")
        #expect(view.component(withIdentifier: "deeper")?.indexPath == [0, 0, 0])
        #expect(view.component(withIdentifier: "hc")?.type == .header)
        #expect(view.component(withIdentifier: "o")?.title == "overlay")
        #expect(view.component(withIdentifier: "header")?.type == .header)
        #expect(view.component(withIdentifier: "missing") == nil)
    }
}
