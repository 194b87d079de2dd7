/// A JSON object that keeps its keys in insertion order.
///
/// Lookups are linear for small objects (the common case in view models) and go through a
/// hash index once an object grows past ``indexThreshold`` keys. Equality ignores key order,
/// as JSON objects do; serialization keeps it.
public struct JSONObject: Sendable, Equatable, RandomAccessCollection {
    public typealias Element = (key: String, value: JSONValue)

    @usableFromInline var keys: [String]
    @usableFromInline var values: [JSONValue]
    /// Key to position, kept only for large objects.
    @usableFromInline var index: [String: Int]?

    /// Objects with more keys than this keep a hash index for lookups.
    public static let indexThreshold = 16

    /// An empty object.
    public init() {
        keys = []
        values = []
        index = nil
    }

    /// An object from key-value pairs in order; a repeated key replaces the earlier value in place.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, JSONValue) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public subscript(position: Int) -> Element { (keys[position], values[position]) }

    /// The keys in order.
    public var orderedKeys: [String] { keys }

    /// Position of `key`, if present.
    @inlinable public func position(of key: String) -> Int? {
        if let index { return index[key] }
        return keys.firstIndex(of: key)
    }

    /// The value for `key`; setting `nil` removes the key, setting a value replaces it in place
    /// or appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return values[position]
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// An object from parallel key and value arrays whose keys the caller knows are distinct.
    @usableFromInline init(uniqueKeys keys: [String], values: [JSONValue]) {
        self.keys = keys
        self.values = values
        self.index = nil
        if keys.count > Self.indexThreshold { rebuildIndex() }
    }

    /// Appends a key the caller knows is not present (the parser checks duplicates itself).
    @usableFromInline mutating func append(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
        if index != nil {
            index![key] = keys.count - 1
        } else if keys.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Reserves room for `count` keys.
    public mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    private mutating func rebuildIndex() {
        guard keys.count > Self.indexThreshold else {
            index = nil
            return
        }
        var newIndex = [String: Int](minimumCapacity: keys.count)
        for (position, key) in keys.enumerated() { newIndex[key] = position }
        index = newIndex
    }

    /// Shallow merge (S28): every key of `other` replaces the value here (keeping its position)
    /// or is appended; nested objects are replaced, not merged.
    public mutating func merge(_ other: JSONObject) {
        reserveCapacity(count + other.count)
        for position in other.indices {
            self[other.keys[position]] = other.values[position]
        }
    }

    /// Equal when both hold the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.keys.count == rhs.keys.count else { return false }
        if lhs.keys == rhs.keys { return lhs.values == rhs.values }
        for position in lhs.indices {
            guard let other = rhs[lhs.keys[position]], other == lhs.values[position] else { return false }
        }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
