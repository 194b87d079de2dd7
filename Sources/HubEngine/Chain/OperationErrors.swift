/// The errors a chain's operations left in their latest run: `errors[i]` is operation i's
/// (S93), `nil` when it succeeded or has not run. Most runs fail nowhere: the slots are then not
/// allocated at all, and are dropped again once every slot is `nil` (a held session keeps one
/// of these between runs; memory per held session).
struct OperationErrors: MutableCollection, RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    /// Empty while no slot holds an error; otherwise `count` slots.
    private var slots: [(any Error)?]
    private let size: Int

    /// `count` slots without an error.
    init(count: Int) {
        slots = []
        size = count
    }

    init(arrayLiteral elements: (any Error)?...) {
        size = elements.count
        slots = elements.contains { $0 != nil } ? elements : []
    }

    var startIndex: Int { 0 }
    var endIndex: Int { size }

    subscript(position: Int) -> (any Error)? {
        get {
            precondition(position >= 0 && position < size, "operation index out of range")
            return slots.isEmpty ? nil : slots[position]
        }
        set {
            precondition(position >= 0 && position < size, "operation index out of range")
            if slots.isEmpty {
                guard newValue != nil else { return }
                slots = Array(repeating: nil, count: size)
            }
            slots[position] = newValue
            if newValue == nil, !slots.contains(where: { $0 != nil }) { slots = [] }
        }
    }
}
