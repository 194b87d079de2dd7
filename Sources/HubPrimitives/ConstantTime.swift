/// Comparisons of secrets whose time does not depend on where the bytes differ: a check of the
/// lengths, then every byte pair XORed into one accumulator (eight pairs at a time), so a client timing the answer
/// learns at most whether the lengths matched, never how long a prefix it guessed right.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes, reading every byte of both when the lengths
    /// agree.
    @inline(never)
    public static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Eight bytes at a time, then the rest: every byte is read whatever the others hold.
        var difference: UInt64 = 0
        var index = 0
        while index + 8 <= lhs.count {
            difference |= lhs.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                ^ rhs.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < lhs.count {
            difference |= UInt64(lhs[index] ^ rhs[index])
            index += 1
        }
        return difference == 0
    }

    /// Whether the two byte arrays hold the same bytes (compared as the raw buffers are).
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in equal(left, right) } }
    }

    /// Whether the two strings have the same UTF-8 bytes (no Unicode normalization: a token's
    /// text is compared byte for byte).
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        // In place for native strings (no copy on the held-session path); bridged ones are copied.
        let compared = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right)) }
        }
        if let compared, let compared { return compared }
        return equal(Array(lhs.utf8), Array(rhs.utf8))
    }
}
