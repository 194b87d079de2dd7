/// Writes a response head into memory sized beforehand (``ResponseEncoder/head(status:headers:framing:keepAlive:version:requestId:)``
/// computes an upper bound): no capacity check or uniqueness check per append, as `Array.append`
/// makes. Every write is bounds-checked in debug builds (the fuzzers and tests run them).
struct HeadWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    mutating func append(_ byte: UInt8) {
        assert(count < capacity, "response head larger than its computed bound")
        base[count] = byte
        count += 1
    }

    mutating func appendCRLF() {
        assert(count + 2 <= capacity, "response head larger than its computed bound")
        base[count] = 0x0D
        base[count + 1] = 0x0A
        count += 2
    }

    /// ASCII text known when the program is built.
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        assert(count + bytes.count <= capacity, "response head larger than its computed bound")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        append(UnsafeBufferPointer(rebasing: bytes))
    }

    /// A non-negative decimal (a negative one is written as 0: statuses and lengths are never negative).
    mutating func appendDecimal(_ value: Int) {
        let value = UInt(max(0, value))
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        assert(count + digits <= capacity, "response head larger than its computed bound")
        var remaining = value
        var index = count + digits
        repeat {
            index -= 1
            base[index] = 0x30 &+ UInt8(truncatingIfNeeded: remaining % 10)
            remaining /= 10
        } while remaining > 0
        count += digits
    }

    /// A header name or value with CR, LF and NUL replaced by spaces (no response splitting).
    mutating func appendSanitized(_ string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { appendSanitized($0) }
        if done == nil {
            for byte in string.utf8 { append(Self.sanitized(byte)) }
        }
    }

    /// Bytes of a header name or value, sanitized as ``appendSanitized(_:)-(String)`` does.
    mutating func appendSanitized(_ bytes: UnsafeBufferPointer<UInt8>) {
        assert(count + bytes.count <= capacity, "response head larger than its computed bound")
        let target = base + count
        // One pass, branch-free per byte (the compiler vectorizes the select).
        for index in 0..<bytes.count { target[index] = Self.sanitized(bytes[index]) }
        count += bytes.count
    }

    @inline(__always)
    private static func sanitized(_ byte: UInt8) -> UInt8 {
        byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte
    }
}
