import HubSync
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's secure random generator, read 16 KiB at a time from a descriptor kept open:
/// one `read` of `/dev/urandom` per 1,024 draws of 128 bits instead of a syscall per word (`SystemRandomNumberGenerator`
/// makes one `getrandom` call per `next()`). For session identifiers and trace ids.
public enum SecureRandom {
    /// Several pools, each behind its own lock, picked by the calling thread: every event loop
    /// draws for each request (request and trace ids), and one shared lock made the loops queue
    /// on each other.
    private static let pools = Striped { RandomPool() }

    /// 128 random bits.
    public static func next128() -> (UInt64, UInt64) {
        pools.current.withLock { $0.next128() }
    }

    /// 256 random bits, from one turn of the pool's lock (a trace parent needs 192).
    public static func next256() -> (UInt64, UInt64, UInt64, UInt64) {
        pools.current.withLock { pool in
            let (first, second) = pool.next128()
            let (third, fourth) = pool.next128()
            return (first, second, third, fourth)
        }
    }

    /// `count` random bytes as lowercase hex (`count` at most 16).
    public static func hex(bytes count: Int) -> String {
        precondition(count > 0 && count <= 16, "at most 16 bytes at a time")
        let (high, low) = next128()
        return String(unsafeUninitializedCapacity: count * 2) { text in
            for index in 0..<count {
                let word = index < 8 ? high : low
                let byte = UInt8(truncatingIfNeeded: word >> UInt64((index % 8) * 8))
                text[2 * index] = Hex.digit(byte >> 4)
                text[2 * index + 1] = Hex.digit(byte & 0x0F)
            }
            return count * 2
        }
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
        var buffer = [UInt64](repeating: 0, count: 2048)
        buffer.withUnsafeMutableBytes { raw in
            var generator = SystemRandomNumberGenerator()
            generator.fill(raw)
        }
        words = buffer
        position = 0
    }
}

private extension SystemRandomNumberGenerator {
    #if canImport(Glibc)
    /// `/dev/urandom`, opened once for the process (-1 when it cannot be: then word by word).
    static let urandom = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    #endif

    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        // The standard library exposes only `next()` (a syscall per word); read the same
        // kernel CSPRNG in bulk from /dev/urandom.
        #if canImport(Glibc)
        let descriptor = Self.urandom
        if descriptor >= 0 {
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
