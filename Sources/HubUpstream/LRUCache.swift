/// A least-recently-used map bounded by entry count and by total cost (bytes).
///
/// A plain value type: the owner serializes access (``HTTPCache`` keeps it in a ``Locked``). Nodes live
/// in an array linked by indices, so lookups and updates are O(1) without per-node allocations.
struct LRUCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var previous: Int
        var next: Int
    }

    private var nodes: [Node] = []
    private var indexByKey: [Key: Int] = [:]
    private var freeIndexes: [Int] = []
    private var head = -1  // most recently used
    private var tail = -1  // least recently used
    private(set) var totalCost = 0
    let maxEntries: Int
    let maxCost: Int

    init(maxEntries: Int, maxCost: Int) {
        self.maxEntries = maxEntries
        self.maxCost = maxCost
    }

    var count: Int { indexByKey.count }

    /// The value for `key`, marking it most recently used.
    mutating func value(forKey key: Key) -> Value? {
        guard let index = indexByKey[key] else { return nil }
        moveToFront(index)
        return nodes[index].value
    }

    /// The value for `key` without marking it used.
    func peek(_ key: Key) -> Value? { indexByKey[key].map { nodes[$0].value } }

    /// True when `key` is stored (without marking it used).
    func contains(_ key: Key) -> Bool { indexByKey[key] != nil }

    /// Inserts or replaces `key`, then evicts least recently used entries past either bound.
    /// A value costing more than `maxCost` on its own is not stored, and removes `key`'s old value.
    /// Returns the entries removed (evicted, or `key`'s old value when the new one is refused);
    /// a replaced value of `key` is not among them.
    @discardableResult
    mutating func setValue(_ value: Value, forKey key: Key, cost: Int) -> [(key: Key, value: Value)] {
        guard maxEntries > 0, cost <= maxCost else {
            return removeValue(forKey: key).map { [(key: key, value: $0)] } ?? []
        }
        if let index = indexByKey[key] {
            totalCost += cost - nodes[index].cost
            nodes[index].value = value
            nodes[index].cost = cost
            moveToFront(index)
        } else {
            let node = Node(key: key, value: value, cost: cost, previous: -1, next: -1)
            let index: Int
            if let free = freeIndexes.popLast() {
                nodes[free] = node
                index = free
            } else {
                nodes.append(node)
                index = nodes.count - 1
            }
            indexByKey[key] = index
            totalCost += cost
            linkAtFront(index)
        }
        var removed: [(key: Key, value: Value)] = []
        while indexByKey.count > maxEntries || totalCost > maxCost, tail != -1 {
            let evictedKey = nodes[tail].key
            if let evicted = removeValue(forKey: evictedKey) { removed.append((key: evictedKey, value: evicted)) }
        }
        return removed
    }

    /// Removes `key` if present and returns its value.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let index = indexByKey.removeValue(forKey: key) else { return nil }
        unlink(index)
        totalCost -= nodes[index].cost
        freeIndexes.append(index)
        return nodes[index].value
    }

    private mutating func moveToFront(_ index: Int) {
        guard head != index else { return }
        unlink(index)
        linkAtFront(index)
    }

    private mutating func linkAtFront(_ index: Int) {
        nodes[index].previous = -1
        nodes[index].next = head
        if head != -1 { nodes[head].previous = index }
        head = index
        if tail == -1 { tail = index }
    }

    private mutating func unlink(_ index: Int) {
        let previous = nodes[index].previous, next = nodes[index].next
        if previous != -1 { nodes[previous].next = next } else { head = next }
        if next != -1 { nodes[next].previous = previous } else { tail = previous }
        nodes[index].previous = -1
        nodes[index].next = -1
    }
}
