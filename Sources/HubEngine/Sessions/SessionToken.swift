/// What a client holds for a session (`Hub-Session`): the 128-bit random identifier, which is
/// the bearer secret, plus what any process needs to rebuild the session when it does not hold
/// it (evicted, expired, restarted, another replica): the view URI.
///
/// ```
/// token  = id [ "." kind uri ]
/// id     = 22 base64url characters (128 random bits)
/// kind   = "s" (the session was stored when the token was issued) / "l" (lazy: it was not)
/// uri    = the view URI, base64url without padding
/// ```
///
/// URL-safe and opaque to clients. A token carries the URI when it is at most
/// ``maximumEncodedURIBytes`` bytes (a token of at most 1 KiB); a longer URI gives an id-only
/// token, which names the session only in the process that holds it. Nothing past the id is
/// secret or signed: a rebuild trusts the URI exactly as far as a `uri` parameter.
public struct SessionToken: Sendable, Hashable, CustomStringConvertible {
    /// The session identifier (the bearer secret).
    public let id: String
    /// The view URI to rebuild the session for; `nil` for an id-only token.
    public let viewURI: String?
    /// `true` when the session was not stored when the token was issued (a memoized view):
    /// its first use creates it, which is not counted as a rebuild.
    public let lazy: Bool

    /// Longest view URI a token carries (its base64url form keeps the token within 1 KiB).
    public static let maximumEncodedURIBytes = 750

    /// A token for a new session.
    public init(id: String, viewURI: String?, lazy: Bool = false) {
        self.id = id
        self.viewURI = viewURI.flatMap { $0.utf8.count <= Self.maximumEncodedURIBytes ? $0 : nil }
        self.lazy = lazy
    }

    /// Parses a token; `nil` for anything that is not one (garbage is unknown, never rebuilt).
    public init?(_ text: String) {
        let utf8 = text.utf8
        guard utf8.count >= 22, utf8.count <= 1024 else { return nil }
        let id = String(decoding: utf8.prefix(22), as: UTF8.self)
        guard SessionIdentifier.isWellFormed(id) else { return nil }
        let rest = utf8.dropFirst(22)
        if rest.isEmpty {
            self.init(id: id, viewURI: nil)
            return
        }
        guard rest.count >= 3, rest.first == UInt8(ascii: "."), let kind = rest.dropFirst().first,
            kind == UInt8(ascii: "s") || kind == UInt8(ascii: "l"),
            let uriBytes = Base64URL.decode(rest.dropFirst(2)), !uriBytes.isEmpty,
            let uri = String(validating: uriBytes, as: UTF8.self),
            !uri.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else { return nil }
        self.init(id: id, viewURI: uri, lazy: kind == UInt8(ascii: "l"))
    }

    /// The identifier a token text starts with, without reading the rest (the hot path: a held
    /// session needs nothing else). `nil` when the text cannot be a token.
    public static func identifier(of text: String) -> String? {
        let utf8 = text.utf8
        let count = utf8.count
        guard count >= 22, count <= 1024 else { return nil }
        // The bytes are checked in place; the identifier is copied out only when it is one.
        let checked: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
            (count == 22 || bytes[22] == UInt8(ascii: ".")) && SessionIdentifier.isWellFormed(bytes.prefix(22))
        }
        if checked == false { return nil }
        if checked == nil {
            guard count == 22 || utf8.dropFirst(22).first == UInt8(ascii: "."),
                SessionIdentifier.isWellFormed(utf8.prefix(22))
            else { return nil }
        }
        return count == 22 ? text : String(decoding: utf8.prefix(22), as: UTF8.self)
    }

    /// The token text.
    public var encoded: String {
        guard let viewURI else { return id }
        return id + (lazy ? ".l" : ".s") + Base64URL.encode(Array(viewURI.utf8))
    }

    public var description: String { encoded }

    /// Whether `text` is this token's ``encoded`` text, compared without building it (the hot
    /// path answers a held session's request with the text the client sent).
    public func isEncoded(as text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let viewURI else { return bytes.elementsEqual(id.utf8) }
            let uri = viewURI.utf8
            guard bytes.count == 24 + (uri.count * 4 + 2) / 3, bytes.prefix(22).elementsEqual(id.utf8),
                bytes[22] == UInt8(ascii: "."), bytes[23] == (lazy ? UInt8(ascii: "l") : UInt8(ascii: "s"))
            else { return false }
            return Base64URL.matches(bytes[24...], encoding: uri)
        }
    }

    /// The token a rebuilt or materialized session keeps: the same text, so responses name the
    /// token the client sent.
    public var canRebuild: Bool { viewURI != nil }
}

/// base64url without padding (RFC 4648 section 5).
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = Int8(index) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let value = UInt32(bytes[index]) << 16
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
        } else if remaining == 2 {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` is the encoding of `bytes` (no allocation; on every `GET /view?session=`).
    static func matches(_ text: Slice<UnsafeBufferPointer<UInt8>>, encoding bytes: String.UTF8View) -> Bool {
        guard text.count == (bytes.count * 4 + 2) / 3 else { return false }
        var position = text.startIndex
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                guard text[position] == character(accumulator >> bits) else { return false }
                position += 1
            }
            accumulator &= (1 << bits) - 1
        }
        if bits > 0 {
            guard text[position] == character(accumulator << (6 - bits)) else { return false }
        }
        return true
    }

    /// The alphabet's character for the low 6 bits of `value` (arithmetic: no table to load).
    @inline(__always)
    private static func character(_ value: UInt32) -> UInt8 {
        let index = UInt8(truncatingIfNeeded: value & 63)
        switch index {
        case 0..<26: return UInt8(ascii: "A") + index
        case 26..<52: return UInt8(ascii: "a") + index - 26
        case 52..<62: return UInt8(ascii: "0") + index - 52
        case 62: return UInt8(ascii: "-")
        default: return UInt8(ascii: "_")
        }
    }

    /// `nil` for characters outside the alphabet, a length of 1 mod 4, or non-zero pad bits.
    static func decode<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8]? {
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
