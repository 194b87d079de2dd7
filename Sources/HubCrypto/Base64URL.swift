/// base64url without padding (RFC 4648 section 5).
public enum Base64URL {
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = Int8(index)
        }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out` (any sequence: a string's UTF-8, a buffer).
    public static func append(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        // Contiguous input (a native string's UTF-8, an array, a buffer): three bytes to four
        // characters written in place, one resize of `out` (a token is made per `GET /view`).
        let done: Void? = bytes.withContiguousStorageIfAvailable { input in
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: encodedCount(input.count)))
            out.withUnsafeMutableBufferPointer { output in _ = write(input, into: output, at: start) }
        }
        guard done == nil else { return }
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(character(accumulator >> bits))
            }
            accumulator &= (1 << bits) - 1
        }
        if bits > 0 { out.append(character(accumulator << (6 - bits))) }
    }

    /// The alphabet, read through a pointer to static data (no array, no bounds check, no branch).
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// The characters that encode `count` bytes (no padding).
    public static func encodedCount(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Writes the encoding of `input` into `output` from `start` (room for
    /// ``encodedCount(_:)`` characters); returns the index after the last one written.
    public static func write(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var read = 0, written = start
        while read + 3 <= input.count {
            let group = UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8 | UInt32(input[read + 2])
            output[written] = character(group >> 18)
            output[written + 1] = character(group >> 12)
            output[written + 2] = character(group >> 6)
            output[written + 3] = character(group)
            read += 3
            written += 4
        }
        let left = input.count - read
        if left == 1 {
            let group = UInt32(input[read]) << 16
            output[written] = character(group >> 18)
            output[written + 1] = character(group >> 12)
            written += 2
        } else if left == 2 {
            let group = UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8
            output[written] = character(group >> 18)
            output[written + 1] = character(group >> 12)
            output[written + 2] = character(group >> 6)
            written += 3
        }
        return written
    }

    /// The alphabet's character for the low 6 bits of `value`.
    @inline(__always)
    private static func character(_ value: UInt32) -> UInt8 {
        alphabet.utf8Start[Int(value & 63)]
    }

    /// `nil` for characters outside the alphabet, a length of 1 mod 4, or non-zero pad bits.
    public static func decode<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            let value = values[Int(byte)]
            guard value >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero (one canonical encoding per URI).
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
