import HubModel
import Testing

/// The view model diff: reference §7, S173..S182. Upstream runs every test with both Myers
/// and LCS; HubServer has one algorithm (Myers), so each test runs once, with the same
/// expectations.
@Suite("View model diff (S173..S182)")
struct DiffTests {
    /// A view whose body has these ids; ids in `changed` carry different custom data.
    static func view(_ ids: [String], changed: Set<String> = [], header: String? = nil, overlays: [String] = []) -> ViewModel {
        var builder = ViewModelBuilder()
        for id in ids {
            builder.body[id].title = "title of \(id)"
            if changed.contains(id) { builder.body[id].setCustomDataValue("changed", forKey: "state") }
        }
        if let header { builder.withHeader { $0.componentName = header } }
        for id in overlays { builder.overlays[id].title = id }
        return builder.build()
    }

    static func ids(_ numbers: [Int]) -> [String] { numbers.map { "c\($0)" } }

    @Test("S174 identical view models: no changes")
    func s174() {
        let a = Self.view(["c1", "c2", "c3"], header: "h")
        let b = Self.view(["c1", "c2", "c3"], header: "h")
        let diff = ViewModelDiff(from: a, to: b)
        #expect(diff.insertedBodyIndexes.isEmpty && diff.deletedBodyIndexes.isEmpty && diff.reloadedBodyIndexes.isEmpty)
        #expect(!diff.headerChanged)
        #expect(!diff.hasChanges)
        #expect(!ViewModelDiff(from: .empty, to: .empty).hasChanges)
        #expect(!ViewModelDiff(from: a, to: a).hasChanges)
    }

    @Test("S175 [] to [c1..c4]: inserted 0,1,2,3")
    func s175() {
        let diff = ViewModelDiff(from: Self.view([]), to: Self.view(Self.ids([1, 2, 3, 4])))
        #expect(diff.insertedBodyIndexes == [0, 1, 2, 3])
        #expect(diff.deletedBodyIndexes.isEmpty && diff.reloadedBodyIndexes.isEmpty)
        #expect(diff.hasChanges)
    }

    @Test("S176 same ids, custom data changed on c1 and c3: reloaded 0,2")
    func s176() {
        let ids = Self.ids([1, 2, 3, 4])
        let diff = ViewModelDiff(from: Self.view(ids), to: Self.view(ids, changed: ["c1", "c3"]))
        #expect(diff.reloadedBodyIndexes == [0, 2])
        #expect(diff.insertedBodyIndexes.isEmpty && diff.deletedBodyIndexes.isEmpty)
        #expect(diff.hasChanges)
    }

    @Test("S177 [c1,c2,c3,c4] to [c2,c4]: deleted 0,2")
    func s177() {
        let diff = ViewModelDiff(from: Self.view(Self.ids([1, 2, 3, 4])), to: Self.view(Self.ids([2, 4])))
        #expect(diff.deletedBodyIndexes == [0, 2])
        #expect(diff.insertedBodyIndexes.isEmpty && diff.reloadedBodyIndexes.isEmpty)
    }

    @Test("S178 deletes and reloads use OLD indexes, inserts NEW: [c1,c2,c3] to [c0,c1*,c2*,c3*]")
    func s178Single() {
        let diff = ViewModelDiff(
            from: Self.view(Self.ids([1, 2, 3])), to: Self.view(Self.ids([0, 1, 2, 3]), changed: ["c1", "c2", "c3"]))
        #expect(diff.insertedBodyIndexes == [0])
        #expect(diff.reloadedBodyIndexes == [0, 1, 2])
        #expect(diff.deletedBodyIndexes.isEmpty)
    }

    @Test("S178 two inserted at the start with data changes: inserted 0,1, reloaded 0,1,2")
    func s178Multiple() {
        let diff = ViewModelDiff(
            from: Self.view(Self.ids([1, 2, 3])),
            to: Self.view(["x", "y"] + Self.ids([1, 2, 3]), changed: ["c1", "c2", "c3"]))
        #expect(diff.insertedBodyIndexes == [0, 1])
        #expect(diff.reloadedBodyIndexes == [0, 1, 2])
        #expect(diff.deletedBodyIndexes.isEmpty)
    }

    @Test("S179 complex change set: 1..10 to [1,2*,30,4,5,6,7,9*,10,13]")
    func s179() {
        let diff = ViewModelDiff(
            from: Self.view(Self.ids(Array(1...10))),
            to: Self.view(Self.ids([1, 2, 30, 4, 5, 6, 7, 9, 10, 13]), changed: ["c2", "c9"]))
        #expect(diff.deletedBodyIndexes == [2, 7], "c3, c8")
        #expect(diff.insertedBodyIndexes == [2, 9], "c30, c13")
        #expect(diff.reloadedBodyIndexes == [1, 8], "c2, and c9 at its OLD index 8")
        #expect(!diff.headerChanged)
    }

    @Test("S180 header: nil/nil no change; appear, disappear, differ are changes; equal is not")
    func s180() {
        let none = Self.view(["a"])
        let x = Self.view(["a"], header: "x")
        let y = Self.view(["a"], header: "y")
        #expect(!ViewModelDiff(from: none, to: none).headerChanged)
        #expect(!ViewModelDiff(from: none, to: none).hasChanges)
        for (from, to) in [(none, x), (x, none), (x, y)] {
            let diff = ViewModelDiff(from: from, to: to)
            #expect(diff.headerChanged)
            #expect(diff.hasChanges)
            #expect(diff.insertedBodyIndexes.isEmpty && diff.deletedBodyIndexes.isEmpty && diff.reloadedBodyIndexes.isEmpty)
        }
        #expect(!ViewModelDiff(from: x, to: Self.view(["a"], header: "x")).hasChanges)
    }

    @Test("S181 a move is a delete at the old index plus an insert at the new one, never a reload")
    func s181() {
        let diff = ViewModelDiff(from: Self.view(["a", "b", "c"]), to: Self.view(["c", "a", "b"], changed: ["c"]))
        #expect(diff.deletedBodyIndexes == [2])
        #expect(diff.insertedBodyIndexes == [0])
        #expect(diff.reloadedBodyIndexes.isEmpty, "a moved and changed component is not also reloaded")

        let swap = ViewModelDiff(from: Self.view(["a", "b"]), to: Self.view(["b", "a"]))
        #expect(swap.deletedBodyIndexes.count == 1 && swap.insertedBodyIndexes.count == 1)
        #expect(swap.reloadedBodyIndexes.isEmpty)
    }

    @Test("S173 only the body is diffed: overlays are ignored; identity is the id, not the content")
    func s173() {
        let before = Self.view(["a"], overlays: ["o1"])
        let after = Self.view(["a"], overlays: ["o2", "o3"])
        #expect(!ViewModelDiff(from: before, to: after).hasChanges)

        var renamed = ViewModelBuilder()
        renamed.body["b"].title = "title of a"
        let diff = ViewModelDiff(from: Self.view(["a"]), to: renamed.build())
        #expect(diff.deletedBodyIndexes == [0] && diff.insertedBodyIndexes == [0] && diff.reloadedBodyIndexes.isEmpty)
    }

    @Test("S173/S81 a reload is deep inequality: children count, index does not")
    func s173Deep() {
        var old = ViewModelBuilder()
        old.body["a"].children["k"].title = "one"
        old.body["b"].title = "b"
        var new = old
        new.body["a"].children["k"].title = "two"
        #expect(ViewModelDiff(from: old.build(), to: new.build()).reloadedBodyIndexes == [0])

        // b moves from index 1 to index 0 only because a is deleted: same content, no reload.
        var shifted = old
        shifted.body.remove("a")
        let diff = ViewModelDiff(from: old.build(), to: shifted.build())
        #expect(diff.deletedBodyIndexes == [0] && diff.reloadedBodyIndexes.isEmpty && diff.insertedBodyIndexes.isEmpty)
    }

    @Test("S182 duplicate ids cannot come from builders; hand-made duplicates still give a consistent diff")
    func s182() throws {
        let fromJSON = try buildView(#"{"body":[{"id":"a"},{"id":"a"},{"id":"b"}]}"#)
        #expect(fromJSON.body.map(\.identifier) == ["a", "b"], "S30: the builder merges repeated ids")

        func model(_ id: String, _ title: String) -> ComponentModel {
            ComponentModel(identifier: id, type: .body, componentIdentifier: "default:row", componentCategory: "row", title: title)
        }
        let old = ViewModel(body: [model("a", "1"), model("a", "2"), model("b", "3")])
        let new = ViewModel(body: [model("a", "1"), model("b", "3"), model("a", "2")])
        let diff = ViewModelDiff(from: old, to: new)
        Self.checkConsistent(diff, old: old.body.map(\.identifier), new: new.body.map(\.identifier))
        #expect(diff.deletedBodyIndexes.count == 1 && diff.insertedBodyIndexes.count == 1)
    }

    // MARK: - Algorithm properties

    /// The old ids without the deleted ones equal the new ids without the inserted ones (the
    /// kept components, in order), and reloads are kept components.
    static func checkConsistent(_ diff: ViewModelDiff, old: [String], new: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let deleted = Set(diff.deletedBodyIndexes)
        let inserted = Set(diff.insertedBodyIndexes)
        let keptOld = old.indices.filter { !deleted.contains($0) }.map { old[$0] }
        let keptNew = new.indices.filter { !inserted.contains($0) }.map { new[$0] }
        #expect(keptOld == keptNew, sourceLocation: sourceLocation)
        #expect(diff.deletedBodyIndexes == diff.deletedBodyIndexes.sorted(), sourceLocation: sourceLocation)
        #expect(diff.insertedBodyIndexes == diff.insertedBodyIndexes.sorted(), sourceLocation: sourceLocation)
        #expect(diff.reloadedBodyIndexes.allSatisfy { !deleted.contains($0) && $0 < old.count }, sourceLocation: sourceLocation)
    }

    /// Length of a longest common subsequence, by the textbook O(N*M) table.
    static func lcsLength(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var previous = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var current = [Int](repeating: 0, count: b.count + 1)
            for (j, y) in b.enumerated() {
                current[j + 1] = x == y ? previous[j] + 1 : max(previous[j + 1], current[j])
            }
            previous = current
        }
        return previous[b.count]
    }

    /// A small deterministic generator (no randomness between runs).
    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test("Myers finds a longest common subsequence: 500 generated cases against the O(N*M) table")
    func optimal() {
        var random = LCG(state: 42)
        for _ in 0..<500 {
            let alphabet = 1 + random.next(12)
            let old = Self.unique((0..<random.next(14)).map { _ in "c\(random.next(alphabet))" })
            var new = old.filter { _ in random.next(3) != 0 }
            for _ in 0..<random.next(6) {
                new.insert("n\(random.next(30))", at: random.next(new.count + 1))
            }
            if new.count > 1, random.next(2) == 0 { new.swapAt(random.next(new.count), random.next(new.count)) }
            new = Self.unique(new)
            let changed = Set(old.filter { _ in random.next(4) == 0 })
            let diff = ViewModelDiff(from: Self.view(old), to: Self.view(new, changed: changed))
            Self.checkConsistent(diff, old: old, new: new)
            #expect(old.count - diff.deletedBodyIndexes.count == Self.lcsLength(old, new), "\(old) -> \(new)")
            let expectedReloads = old.indices.filter { !diff.deletedBodyIndexes.contains($0) && changed.contains(old[$0]) }
            #expect(diff.reloadedBodyIndexes == expectedReloads)
        }
    }

    @Test("Myers handles duplicates optimally too (hand-made models, S182)")
    func optimalWithDuplicates() {
        var random = LCG(state: 7)
        for _ in 0..<300 {
            let old = (0..<random.next(12)).map { _ in "d\(random.next(4))" }
            let new = (0..<random.next(12)).map { _ in "d\(random.next(4))" }
            func models(_ ids: [String]) -> [ComponentModel] {
                ids.map { ComponentModel(identifier: $0, type: .body, componentIdentifier: "default:row", componentCategory: "row") }
            }
            let diff = ViewModelDiff(from: ViewModel(body: models(old)), to: ViewModel(body: models(new)))
            Self.checkConsistent(diff, old: old, new: new)
            #expect(old.count - diff.deletedBodyIndexes.count == Self.lcsLength(old, new), "\(old) -> \(new)")
        }
    }

    @Test("large bodies: few changes in 5000 components; full reversal of 1000")
    func large() {
        let old = (0..<5000).map { "c\($0)" }
        var new = old
        new.remove(at: 4000)
        new.insert("fresh", at: 2500)
        new.remove(at: 10)
        let diff = ViewModelDiff(from: Self.view(old), to: Self.view(new, changed: ["c3000"]))
        #expect(diff.deletedBodyIndexes == [10, 4000])
        #expect(diff.insertedBodyIndexes == [2499])
        #expect(diff.reloadedBodyIndexes == [3000])

        let reversedOld = (0..<1000).map { "r\($0)" }
        let reversed = ViewModelDiff(from: Self.view(reversedOld), to: Self.view(reversedOld.reversed()))
        #expect(reversed.deletedBodyIndexes.count == 999 && reversed.insertedBodyIndexes.count == 999)
        Self.checkConsistent(reversed, old: reversedOld, new: reversedOld.reversed())

        let disjoint = ViewModelDiff(from: Self.view(old), to: Self.view((0..<5000).map { "other\($0)" }))
        #expect(disjoint.deletedBodyIndexes.count == 5000 && disjoint.insertedBodyIndexes.count == 5000)
    }

    static func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }
}
