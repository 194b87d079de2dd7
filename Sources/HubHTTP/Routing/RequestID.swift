import HubPrimitives
import Synchronization

/// Request ids: a client's `X-Request-Id` is echoed when it is 1...128 visible ASCII characters,
/// otherwise one is generated (a random per-process prefix and a counter: unique, cheap).
public enum RequestID {
    public static let headerName = "X-Request-Id"
    static let maxLength = 128

    private static let prefix: String = {
        let value = UInt64.random(in: 0...UInt64.max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }()

    private static let counter = Atomic<UInt64>(0)

    /// The client's id if sane, else a new one.
    public static func make(for request: HTTPRequest) -> String {
        if let sent = request.headers[headerName], isSane(sent) { return sent }
        return generate()
    }

    /// A new id such as `5f3a9c0e12ab77d0-1a`.
    public static func generate() -> String {
        let next = counter.add(1, ordering: .relaxed).newValue
        // One allocation: the prefix, '-', the counter in hex.
        let digits = max(1, (67 - next.leadingZeroBitCount) / 4)
        return String(unsafeUninitializedCapacity: 17 + digits) { out in
            var index = 0
            for byte in prefix.utf8 {
                out[index] = byte
                index += 1
            }
            out[index] = UInt8(ascii: "-")
            for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
                index += 1
                out[index] = Hex.digit(UInt8(truncatingIfNeeded: next >> UInt64(shift)) & 0x0F)
            }
            return index + 1
        }
    }

    /// 1...128 bytes, each visible ASCII (0x21...0x7E).
    public static func isSane(_ value: String) -> Bool {
        let utf8 = value.utf8
        return !utf8.isEmpty && utf8.count <= maxLength && utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
