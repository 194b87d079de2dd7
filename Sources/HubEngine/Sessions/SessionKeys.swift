import HubCrypto
import HubPrimitives

/// The secrets session tokens are signed with (HMAC-SHA256, OpenSSL's libcrypto). The first key
/// signs every new token; every key verifies, so keys rotate without logging anyone out: put the
/// new key first, keep the old one after it until the tokens it signed have expired
/// (`sessions.tokenMaxAgeSeconds`), then drop it.
///
/// Replicas behind one balancer must share their keys: a token signed by one is then rebuilt by
/// any other (docs/SESSIONS.md).
public struct SessionKeys: Sendable, Equatable {
    /// Shortest key accepted, in bytes (the MAC's own size: RFC 2104 section 3).
    public static let minimumKeyBytes = 32

    /// The keys, the signing one first.
    public let keys: [[UInt8]]
    /// Their reusable MAC contexts.
    private let contexts: MACContexts

    /// Why a key was refused.
    public enum KeyError: Error, Equatable, CustomStringConvertible {
        case none
        case tooShort(index: Int, bytes: Int)
        case unreadable(index: Int)

        public var description: String {
            switch self {
            case .none: return "no key given"
            case .tooShort(let index, let bytes):
                return "key \(index + 1) has \(bytes) bytes; each key needs at least \(SessionKeys.minimumKeyBytes)"
            case .unreadable(let index):
                return "key \(index + 1) is neither hex nor base64url (RFC 4648 section 5)"
            }
        }
    }

    /// Keys as raw bytes, the signing one first; each at least ``minimumKeyBytes``.
    public init(_ keys: [[UInt8]]) throws(KeyError) {
        guard !keys.isEmpty else { throw .none }
        for (index, key) in keys.enumerated() where key.count < Self.minimumKeyBytes {
            throw .tooShort(index: index, bytes: key.count)
        }
        self.keys = keys
        self.contexts = MACContexts(keys: keys)
    }

    public static func == (lhs: SessionKeys, rhs: SessionKeys) -> Bool { lhs.keys == rhs.keys }

    /// Keys written as text, the signing one first: each hex (an even number of hex digits) or
    /// base64url (padding and the standard alphabet's `+` and `/` accepted too), decoding to at
    /// least ``minimumKeyBytes``. Surrounding white space is ignored; empty entries are skipped.
    public init(texts: [String]) throws(KeyError) {
        var keys: [[UInt8]] = []
        for (index, raw) in texts.map({ String($0.trimmingOWS()) }).filter({ !$0.isEmpty }).enumerated() {
            guard let key = Self.decode(raw) else { throw .unreadable(index: index) }
            keys.append(key)
        }
        try self.init(keys)
    }

    /// A new random key of 32 bytes (for a server with none configured).
    public static func randomKey() -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let (high, low) = SecureRandom.next128()
            for word in [high, low] {
                for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
            }
        }
        return bytes
    }

    /// One random key: tokens last as long as the process (tests, embedders that set none).
    public static func ephemeral() -> SessionKeys {
        // A fresh 32-byte key always passes the length check.
        (try? SessionKeys([randomKey()]))!
    }

    /// A key's text form (base64url without padding), as written to a key file.
    public static func encode(_ key: [UInt8]) -> String {
        Base64URL.encode(key)
    }

    /// Writes the MAC of `prefix` + `message` under the signing key into `out` (32 bytes). A
    /// failure writes zeros, which never verify against a real MAC (fails closed).
    func sign(prefix: UnsafeBufferPointer<UInt8>, _ message: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        if !contexts.mac(prefix: prefix, message, key: 0, into: out) { out.update(repeating: 0, count: 32) }
    }

    /// The key of view tags (``ViewTags``): HMAC-SHA256(signing key, "hub-view-id.v1"). Derived,
    /// so a view tag reveals nothing of the signing key, and equal on replicas sharing their keys;
    /// it changes when a new signing key is put first (clients then refetch each view once).
    public var viewTagKey: [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let label = Array("hub-view-id.v1".utf8)
        label.withUnsafeBufferPointer { sign(prefix: UnsafeBufferPointer(start: nil, count: 0), $0, into: &out) }
        return out
    }

    /// Whether `mac` is the MAC of `prefix` + `message` under any key (compared in constant time).
    func verify(prefix: UnsafeBufferPointer<UInt8>, _ message: UnsafeBufferPointer<UInt8>, mac: [UInt8]) -> Bool {
        guard mac.count == 32 else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { expected in
            for index in keys.indices where contexts.mac(prefix: prefix, message, key: index, into: expected.baseAddress!) {
                if MACContexts.equal(expected.baseAddress!, mac) { return true }
            }
            return false
        }
    }

    /// Hex or base64url text as bytes; `nil` when it is neither.
    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        if utf8.count % 2 == 0, utf8.count >= 2 * minimumKeyBytes, utf8.allSatisfy(Self.isHexDigit) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count / 2)
            var index = 0
            while index < utf8.count {
                bytes.append(hexValue(utf8[index]) << 4 | hexValue(utf8[index + 1]))
                index += 2
            }
            return bytes
        }
        var normalized = utf8.map { byte -> UInt8 in
            byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte
        }
        while normalized.last == UInt8(ascii: "=") { normalized.removeLast() }
        return Base64URL.decode(normalized)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 102)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8 {
        byte <= 57 ? byte - 48 : (byte | 0x20) - 87
    }
}
