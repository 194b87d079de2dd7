/// ASCII case-insensitive comparison, the rule of HTTP field names and tokens (no locale, no
/// Unicode folding): the one implementation the HTTP layer, the engine and the upstream client share.
public enum ASCII {
    /// Whether two bytes are equal, ignoring the case of ASCII letters.
    @inlinable @inline(__always)
    public static func caseInsensitiveEqual(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }

    /// Whether two byte runs are equal, ignoring the case of ASCII letters.
    @inlinable
    public static func caseInsensitiveEquals(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count where !caseInsensitiveEqual(lhs[index], rhs[index]) {
            return false
        }
        return true
    }

    /// Whether two byte runs are equal, compared eight bytes at a time (a header a client
    /// repeats is compared with its last copy on every request; byte by byte, the generic
    /// `elementsEqual` took 2% of a held request's user time).
    @inlinable
    public static func bytesEqual(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress, left != right else { return true }
        let count = lhs.count
        let leftRaw = UnsafeRawPointer(left), rightRaw = UnsafeRawPointer(right)
        var offset = 0
        while offset + 8 <= count {
            if leftRaw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != rightRaw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < count {
            if left[offset] != right[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Calls `body` with `string`'s UTF-8 bytes, read in place when the string is contiguous
    /// (native and literal strings are), else from a contiguous copy. Unlike `var copy = string;
    /// copy.withUTF8`, the usual case copies nothing: no reference count per call.
    @inlinable
    public static func withUTF8<Result>(
        of string: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        if let result = try string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = string
        return try copy.withUTF8(body)
    }

    /// Whether `lhs` sorts before `rhs` with ASCII letters compared as lowercase (the order of
    /// field names that ignores their case: `Accept` before `hub-client` before `User-Agent`).
    /// Compares the bytes in place: a view request orders the fields it keeps with it on every
    /// open that prepares a chain.
    @inlinable
    public static func caseInsensitivePrecedes(_ lhs: String, _ rhs: String) -> Bool {
        withUTF8(of: lhs) { left in withUTF8(of: rhs) { right in caseInsensitivePrecedes(left, right) } }
    }

    /// Whether `lhs` sorts before `rhs` with ASCII letters compared as lowercase (a prefix sorts
    /// first).
    @inlinable
    public static func caseInsensitivePrecedes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<min(lhs.count, rhs.count) {
            let left = lowercased(lhs[index]), right = lowercased(rhs[index])
            if left != right { return left < right }
        }
        return lhs.count < rhs.count
    }

    /// `byte` with an ASCII capital letter made lowercase.
    @inlinable @inline(__always)
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether `bytes` equal `literal`, ignoring the case of ASCII letters.
    @inlinable
    public static func caseInsensitiveEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        caseInsensitiveEquals(bytes, UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality (header names, tokens), without allocating.
    @inlinable
    public func asciiCaseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        let lhs = utf8, rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Native strings: compare the contiguous bytes (iterating two UTF8Views is far slower).
        let contiguous = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in ASCII.caseInsensitiveEquals(left, right) }
        }
        if let contiguous, let result = contiguous { return result }
        return zip(lhs, rhs).allSatisfy { ASCII.caseInsensitiveEqual($0, $1) }
    }
}
