#if canImport(Glibc)
import Glibc
#endif
import HubSync

/// Session identifiers: 128 bits from the system's secure generator, base64url without
/// padding (22 characters), so they are unguessable and safe in URLs and headers.
public enum SessionIdentifier {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Random bytes fetched from the kernel 4 KiB at a time (a few syscalls per 256 identifiers).
    private static let pool = Locked(RandomPool())

    /// A new random identifier.
    public static func make() -> String {
        let (high, low) = pool.withLock { $0.next128() }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(22)
        // 128 bits as 21 full 6-bit groups plus 2 remaining bits.
        var bitsLeft = 128
        var value = (high, low)
        while bitsLeft > 0 {
            let take = min(6, bitsLeft)
            let index = Int(value.0 >> (64 - UInt64(take)))
            bytes.append(alphabet[index << (6 - take)])
            value = (value.0 << UInt64(take) | value.1 >> (64 - UInt64(take)), value.1 << UInt64(take))
            bitsLeft -= take
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A tag that names a session in logs without revealing it: the identifier is a bearer
    /// credential, so logs carry 64 bits of its FNV-1a hash (16 hex digits) instead. Equal ids
    /// give equal tags, so lines of one session can still be correlated.
    public static func logTag(_ id: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `true` when `text` has the shape of an identifier (22 base64url characters).
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 22 && text.utf8.allSatisfy { alphabet.contains($0) }
    }
}

/// Buffered output of the system's secure generator (`getrandom`), handed out 16 bytes at a time.
struct RandomPool {
    private var words: [UInt64] = []
    private var position = 0

    mutating func next128() -> (UInt64, UInt64) {
        if position + 2 > words.count { refill() }
        defer { position += 2 }
        return (words[position], words[position + 1])
    }

    private mutating func refill() {
        var buffer = [UInt64](repeating: 0, count: 512)
        buffer.withUnsafeMutableBytes { raw in
            var generator = SystemRandomNumberGenerator()
            generator.fill(raw)
        }
        words = buffer
        position = 0
    }
}

private extension SystemRandomNumberGenerator {
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        // The standard library exposes only `next()` (a syscall per word); read the same
        // kernel CSPRNG in bulk from /dev/urandom.
        #if canImport(Glibc)
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            defer { close(descriptor) }
            var filled = 0
            while filled < buffer.count {
                let result = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                if result > 0 { filled += result } else if result < 0 && errno == EINTR { continue } else { break }
            }
            if filled == buffer.count { return }
        }
        #endif
        // Fallback: word by word.
        let words = buffer.bindMemory(to: UInt64.self)
        for index in words.indices { words[index] = next() }
    }
}
