/// A first-in first-out queue on a ring buffer: append at the back, pop at the front, both O(1)
/// with no bulk moves (an array popped from the front needs an occasional `removeFirst(n)`,
/// which under the session store's lock stalled every request for milliseconds).
struct RingQueue<Element> {
    private var storage: [Element?]
    private var head = 0
    private(set) var count = 0

    init() {
        storage = Array(repeating: nil, count: 16)
    }

    var isEmpty: Bool { count == 0 }

    /// The oldest element.
    var first: Element? { count == 0 ? nil : storage[head] }

    /// The element `offset` places from the oldest (`0..<count`).
    subscript(offset: Int) -> Element {
        precondition(offset >= 0 && offset < count, "RingQueue offset out of range")
        return storage[(head + offset) & (storage.count - 1)]!
    }

    mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[(head + count) & (storage.count - 1)] = element
        count += 1
    }

    /// Removes and returns the oldest element.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) & (storage.count - 1)
        count -= 1
        return element
    }

    /// Keeps only the elements for which `isIncluded` holds, in order (O(count)).
    mutating func retain(where isIncluded: (Element) -> Bool) {
        var kept: [Element?] = []
        kept.reserveCapacity(storage.count)
        for offset in 0..<count {
            if let element = storage[(head + offset) & (storage.count - 1)], isIncluded(element) {
                kept.append(element)
            }
        }
        let capacity = storage.count
        count = kept.count
        kept.append(contentsOf: repeatElement(nil, count: capacity - kept.count))
        storage = kept
        head = 0
    }

    /// Doubles the capacity (a power of two), the elements moved to the front in order.
    private mutating func grow() {
        var larger: [Element?] = []
        larger.reserveCapacity(storage.count * 2)
        for offset in 0..<count {
            larger.append(storage[(head + offset) & (storage.count - 1)])
        }
        larger.append(contentsOf: repeatElement(nil, count: storage.count * 2 - count))
        storage = larger
        head = 0
    }
}
