import HubModel

/// The builders a chain's operations left in their latest run: `snapshots[i]` is operation i's
/// (S90), `nil` before it ran or once it was released. Each builder is kept in a box of its own,
/// so a slot without one costs a pointer, not a builder's inline size (about 300 bytes): a held
/// session keeps a slot per operation, most of them empty once its view is built (memory per
/// held session). Boxes are immutable and shared by copies (a session and the chain memo share
/// a memoized run's).
struct Snapshots: MutableCollection, RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    private final class Box: Sendable {
        let builder: ViewModelBuilder

        init(_ builder: ViewModelBuilder) {
            self.builder = builder
        }
    }

    private var boxes: [Box?]

    /// `count` empty slots.
    init(count: Int) {
        boxes = Array(repeating: nil, count: count)
    }

    init(arrayLiteral elements: ViewModelBuilder?...) {
        boxes = elements.map { $0.map(Box.init) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { boxes.count }

    subscript(position: Int) -> ViewModelBuilder? {
        get { boxes[position]?.builder }
        set { boxes[position] = newValue.map(Box.init) }
    }
}
