import HubModel
import Testing

/// Preferred-index ordering and indexes: reference §2.2, S63..S67.
@Suite("Ordering and indexes (S63..S67)")
struct OrderingTests {
    @Test("S63 ascending preferredIndex, remove then insert: A(1), B(0) gives [B, A]; body and overlays")
    func s63() {
        var builder = ViewModelBuilder()
        builder.body["A"].preferredIndex = 1
        builder.body["B"].preferredIndex = 0
        builder.overlays["A"].preferredIndex = 1
        builder.overlays["B"].preferredIndex = 0
        let view = builder.build()
        #expect(view.body.map(\.identifier) == ["B", "A"])
        #expect(view.body.map(\.index) == [0, 1])
        #expect(view.overlays.map(\.identifier) == ["B", "A"])
        #expect(view.overlays.map(\.index) == [0, 1])
    }

    @Test("S63 preferred indexes from JSON-created and code-created builders mix")
    func s63Mixed() throws {
        var builder = ViewModelBuilder()
        try builder.addJSON(Array(#"{"body":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}"#.utf8))
        builder.body["d"].preferredIndex = 0
        builder.body["a"].preferredIndex = 2
        #expect(builder.build().body.map(\.identifier) == ["d", "b", "a", "c"])
    }

    @Test("S64 an out-of-range preferredIndex appends: a single component at 99 gets index 0")
    func s64() {
        var builder = ViewModelBuilder()
        builder.body["only"].preferredIndex = 99
        builder.overlays["only"].preferredIndex = 99
        var parent = ComponentModelBuilder(identifier: "p", type: .body)
        parent.children["only"].preferredIndex = 99
        #expect(builder.build().body.map(\.index) == [0])
        #expect(builder.build().overlays.map(\.index) == [0])
        #expect(parent.build().children.map(\.index) == [0])

        var two = ViewModelBuilder()
        two.body["far"].preferredIndex = 5
        two.body["b"].title = "b"
        two.body["c"].title = "c"
        #expect(two.build().body.map(\.identifier) == ["b", "c", "far"])
    }

    @Test("S65 children A@2, B, C@3, D@1, E@0 give [E, D, A, C, B]")
    func s65() {
        var parent = ComponentModelBuilder(identifier: "p", type: .body)
        parent.children["A"].preferredIndex = 2
        parent.children["B"].title = "B"
        parent.children["C"].preferredIndex = 3
        parent.children["D"].preferredIndex = 1
        parent.children["E"].preferredIndex = 0
        let children = parent.build().children
        #expect(children.map(\.identifier) == ["E", "D", "A", "C", "B"])
        #expect(children.map(\.index) == [0, 1, 2, 3, 4])
    }

    @Test("S66 duplicate preferredIndex: the last-created one wins the slot; A(0), B, C(0) give [C, A, B]")
    func s66() {
        var builder = ViewModelBuilder()
        builder.body["A"].preferredIndex = 0
        builder.body["B"].title = "B"
        builder.body["C"].preferredIndex = 0
        #expect(builder.build().body.map(\.identifier) == ["C", "A", "B"])
    }

    @Test("S67 header index 0; children indexed within their parent; indexPath from the root")
    func s67() {
        var builder = ViewModelBuilder()
        builder.withHeader { $0.children["hc"].title = "x" }
        builder.body["b0"].children["c0"].title = "x"
        builder.body["b0"].children["c1"].children["g0"].title = "grandchild"
        builder.body["b1"].title = "x"
        let view = builder.build()
        #expect(view.header?.index == 0)
        #expect(view.header?.indexPath == [0])
        #expect(view.header?.children.first?.indexPath == [0, 0])
        let b0 = view.body[0]
        #expect(b0.indexPath == [0])
        #expect(view.body[1].indexPath == [1])
        #expect(b0.children.map(\.index) == [0, 1])
        let grandchild = b0.child(at: 1)?.child(at: 0)
        #expect(grandchild?.title == "grandchild")
        #expect(grandchild?.indexPath == [0, 1, 0])
        #expect(b0.child(at: 2) == nil)
        #expect(b0.child(at: -1) == nil)
        #expect(b0.child(withIdentifier: "c1")?.index == 1)
        #expect(b0.child(withIdentifier: "unknown") == nil)
    }

    @Test("S67 index paths follow preferred-index order")
    func s67Ordered() {
        var builder = ViewModelBuilder()
        builder.body["a"].children["x"].title = "x"
        builder.body["b"].preferredIndex = 0
        let view = builder.build()
        #expect(view.body.map(\.identifier) == ["b", "a"])
        #expect(view.body[1].children[0].indexPath == [1, 0])
    }
}
