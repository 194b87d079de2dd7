#if canImport(Glibc)
import Glibc
#endif

/// Whole-buffer byte checks and searches of the request head. The checks go eight bytes at a
/// time (the "has a byte less than / more than n" word tricks of Bit Twiddling Hacks), the tail
/// byte by byte; each answers exactly what the byte-by-byte loop would.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether every byte is visible ASCII, `0x21...0x7E` (a request target's bytes).
    static func isVisibleASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        scan(bytes, word: { word in
            // A byte below 0x21, or above 0x7E.
            (word &- ones &* 0x21) & ~word & highBits != 0 || ((word &+ ones) | word) & highBits != 0
        }, byte: { $0 <= 0x20 || $0 >= 0x7F })
    }

    /// Whether the bytes need no percent-decoding or UTF-8 checking: no `%`, no NUL and no byte
    /// of 0x80 or above.
    static func isPlainASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        scan(bytes, word: { word in
            let percents = word ^ (ones &* 0x25)
            return word & highBits != 0 || (word &- ones) & ~word & highBits != 0
                || (percents &- ones) & ~percents & highBits != 0
        }, byte: { $0 == 0 || $0 == UInt8(ascii: "%") || $0 >= 0x80 })
    }

    /// Whether the bytes may be a header field's value (RFC 9110 section 5.5): no control byte
    /// other than HTAB (below 0x20, or 0x7F). Visible ASCII, SP and obs-text (0x80 and above) pass.
    static func isFieldValue(_ bytes: UnsafeRawBufferPointer) -> Bool {
        scan(bytes, word: { word in
            // A byte below 0x20 (a tab is one: such words are checked byte by byte), or 0x7F.
            let deletes = word ^ (ones &* 0x7F)
            guard (word &- ones &* 0x20) & ~word & highBits != 0 || (deletes &- ones) & ~deletes & highBits != 0 else {
                return false
            }
            for shift in stride(from: 0, to: 64, by: 8) where isControl(UInt8(truncatingIfNeeded: word >> UInt64(shift))) {
                return true
            }
            return false
        }, byte: isControl)
    }

    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// The index of the first `byte` in `bytes` at or after `start`, or nil (`memchr`).
    static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(byte), bytes.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// True when no word and no tail byte is `rejected`.
    @inline(__always)
    private static func scan(
        _ bytes: UnsafeRawBufferPointer, word rejectsWord: (UInt64) -> Bool, byte rejectsByte: (UInt8) -> Bool
    ) -> Bool {
        var offset = 0
        while offset + 8 <= bytes.count {
            if rejectsWord(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return false }
            offset += 8
        }
        while offset < bytes.count {
            if rejectsByte(bytes[offset]) { return false }
            offset += 1
        }
        return true
    }
}
