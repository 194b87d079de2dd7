/// A JSON object written member by member, where a member's value may already be encoded JSON
/// (a rendered view's bytes, sent as they are): the one place an envelope is put around encoded
/// JSON or a member is added to an encoded object, so no endpoint splices braces and commas.
///
///     var envelope = JSONEnvelope(capacity: view.count + 32)
///     envelope.add("performed", .bool(true))
///     envelope.add("view", encoded: view)
///     let body = envelope.finish()  // {"performed":true,"view":{...}}
public struct JSONEnvelope: ~Copyable {
    private var writer: JSONWriter
    private var members: Int

    /// An empty object with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        writer = JSONWriter(capacity: capacity + 2)
        writer.writeByte(UInt8(ascii: "{"))
        members = 0
    }

    /// The members of `object`, an encoded JSON object (as ``JSONWriter`` writes it: no
    /// whitespace after its closing brace), continued by the members added next; nil when
    /// `object` is not an object.
    public init?(extending object: [UInt8], extraCapacity: Int = 256) {
        guard object.count >= 2, object.first == UInt8(ascii: "{"), object.last == UInt8(ascii: "}") else { return nil }
        // `{}` has no member; anything longer has at least one.
        members = object.count == 2 ? 0 : 1
        var writer = JSONWriter(capacity: object.count + extraCapacity)
        object.withUnsafeBufferPointer { writer.writeBytes(UnsafeBufferPointer(rebasing: $0.dropLast())) }
        self.writer = writer
    }

    /// Adds `name` with `value`.
    public mutating func add(_ name: String, _ value: JSONValue) {
        writeName(name)
        writer.writeValue(value)
    }

    /// Adds `name` with `encoded`, bytes that already are one JSON value, written as they are.
    public mutating func add(_ name: String, encoded: [UInt8]) {
        writeName(name)
        writer.writeBytes(encoded)
    }

    /// Closes the object and returns its bytes.
    public consuming func finish() -> [UInt8] {
        writer.writeByte(UInt8(ascii: "}"))
        return writer.finish()
    }

    private mutating func writeName(_ name: String) {
        if members > 0 { writer.writeByte(UInt8(ascii: ",")) }
        members += 1
        writer.writeString(name)
        writer.writeByte(UInt8(ascii: ":"))
    }
}
