import HubCrypto
import HubPrimitives

/// What a client holds for a session (`Hub-Session`): a claim the server made and signed. It
/// carries the session's identifier (128 random bits, made by the server, the bearer secret),
/// the view URI (so any process holding the keys can rebuild the session: evicted, expired,
/// restarted, another replica), when it was issued, and an HMAC-SHA256 over all of that
/// (``SessionKeys``).
///
/// ```
/// token  = id "." kind [ uri ] "." issued [ "." locale ] "." mac
/// id     = 22 base64url characters (128 random bits, server-made)
/// kind   = "s" (the session was stored when the token was issued) / "l" (lazy: it was not)
/// uri    = the view URI, base64url without padding (absent when longer than 700 bytes:
///          such a token names its session only in the process that holds it)
/// issued = seconds since the Unix epoch, decimal
/// locale = the locale the session was opened with (`server.json` `locales`), a language tag
///          (letters, digits and `-`, at most 35 bytes); absent when none was negotiated, so a
///          token of a server without locales, and every token issued before they existed, keeps
///          the four-part form (both forms verify)
/// mac    = base64url of HMAC-SHA256(key, "hub-session.v1:" + everything before the last ".")
///          for a session opened anonymously; for one opened by a verified user,
///          HMAC-SHA256(key, "hub-session.v1:user:" + subject + "\n" + everything before the last "."):
///          the MAC covers the user, the token text does not carry it, so the token verifies only
///          for the user who opened it (``HubUser``)
/// ```
///
/// URL-safe, at most 1 KiB, opaque to clients. A token is accepted only when its MAC verifies
/// under one of the server's keys, it is younger than `sessions.tokenMaxAgeSeconds` and it was
/// issued at most ``maximumClockSkewSeconds`` after the verifier's clock; a client cannot choose
/// an identifier or a URI.
public struct SessionToken: Sendable, Hashable, CustomStringConvertible {
    /// The session identifier (the bearer secret).
    public let id: String
    /// The view URI to rebuild the session for; `nil` for a token that cannot rebuild.
    public let viewURI: String?
    /// `true` when the session was not stored when the token was issued (a memoized view):
    /// its first use creates it, which is not counted as a rebuild.
    public let lazy: Bool
    /// When the token was issued, in seconds since the Unix epoch.
    public let issuedAt: Int64
    /// The locale the session was opened with (covered by the MAC); `nil` when none was
    /// negotiated. A session rebuilt from the token keeps it.
    public let locale: String?
    /// The token text (what clients send back).
    public let encoded: String

    /// Longest view URI a token carries (its base64url form keeps the token within 1 KiB).
    public static let maximumEncodedURIBytes = 700
    /// Longest token text accepted.
    public static let maximumBytes = 1024
    /// How far a token's issue time may be ahead of the verifying clock (replicas' clocks drift
    /// apart by a little): 5 minutes. A token dated later is refused as ``Rejection/future``,
    /// else it would outlive `sessions.tokenMaxAgeSeconds` by however far ahead it is dated.
    public static let maximumClockSkewSeconds: Int64 = 300

    /// Why a token was refused (`hub_session_tokens_rejected_total{reason}`).
    public enum Rejection: String, Sendable, CaseIterable, Error {
        /// Not a token at all.
        case malformed
        /// Its MAC verifies under none of the keys (forged, tampered, or another server's).
        case signature
        /// Older than the maximum age.
        case expired
        /// Issued more than ``SessionToken/maximumClockSkewSeconds`` after now (a clock far
        /// ahead, or a key used to sign a token that would never expire).
        case future
        /// Ended by `DELETE` (``ViewEngine/revoke(_:)``).
        case revoked
    }

    /// A new token, signed with `keys`' signing key. Built in one buffer (on every
    /// `GET /view?uri=` answered from the chain memo: a lazy token per request).
    public init(
        id: String, viewURI: String?, lazy: Bool = false, issuedAt: Int64, keys: SessionKeys, user: HubUser? = nil,
        locale: String? = nil
    ) {
        let uri = viewURI.flatMap { $0.utf8.count <= Self.maximumEncodedURIBytes ? $0 : nil }
        let locale = locale.flatMap { Self.isLocaleTag($0.utf8) ? $0 : nil }
        let issued = String(issuedAt)
        let signedCount = id.utf8.count + 2 + Base64URL.encodedCount(uri?.utf8.count ?? 0) + 1 + issued.utf8.count
            + (locale.map { 1 + $0.utf8.count } ?? 0)
        // Written straight into the string's storage and signed there: one allocation.
        let encoded = String(unsafeUninitializedCapacity: signedCount + 1 + Base64URL.encodedCount(32)) { text in
            var at = Self.write(id, into: text, at: 0)
            text[at] = UInt8(ascii: ".")
            text[at + 1] = lazy ? UInt8(ascii: "l") : UInt8(ascii: "s")
            at += 2
            if var uri { at = uri.withUTF8 { Base64URL.write($0, into: text, at: at) } }
            text[at] = UInt8(ascii: ".")
            at = Self.write(issued, into: text, at: at + 1)
            if let locale {
                text[at] = UInt8(ascii: ".")
                at = Self.write(locale, into: text, at: at + 1)
            }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { mac in
                Self.context(for: user).withUnsafeBufferPointer {
                    keys.sign(prefix: $0, UnsafeBufferPointer(start: text.baseAddress, count: at), into: mac.baseAddress!)
                }
                text[at] = UInt8(ascii: ".")
                at = Base64URL.write(UnsafeBufferPointer(mac), into: text, at: at + 1)
            }
            return at
        }
        self.init(id: id, viewURI: uri, lazy: lazy, issuedAt: issuedAt, locale: locale, encoded: encoded)
    }

    /// Copies `text`'s UTF-8 into `buffer` from `start`; returns the index after it.
    private static func write(_ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var text = text
        return text.withUTF8 { utf8 in
            start + UnsafeMutableBufferPointer(rebasing: buffer[start..<start + utf8.count]).initialize(fromContentsOf: utf8)
        }
    }

    private init(id: String, viewURI: String?, lazy: Bool, issuedAt: Int64, locale: String?, encoded: String) {
        self.id = id
        self.viewURI = viewURI
        self.lazy = lazy
        self.issuedAt = issuedAt
        self.locale = locale
        self.encoded = encoded
    }

    /// The token `text` is, when its MAC verifies under `keys` and it was issued less than
    /// `maxAge` seconds before `now` (seconds since the epoch) and at most
    /// ``maximumClockSkewSeconds`` after it; else why not. Revocation is the engine's to check
    /// (``ViewEngine/verify(_:)``).
    /// `user`: the request's verified user (`nil`: anonymous); a token opened by another user, or
    /// by a user when the request has none, does not verify (``Rejection/signature``).
    public static func verify(
        _ text: String, keys: SessionKeys, now: Int64, maxAge: Int64, user: HubUser? = nil
    ) -> Result<SessionToken, Rejection> {
        let utf8 = text.utf8
        guard utf8.count >= 22 + 4 + 1 + 43, utf8.count <= maximumBytes else { return .failure(.malformed) }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        // Four parts, or five with the locale before the MAC.
        guard parts.count == 4 || parts.count == 5, SessionIdentifier.isWellFormed(parts[0]), let kind = parts[1].first,
            kind == UInt8(ascii: "s") || kind == UInt8(ascii: "l"),
            let issuedAt = decimal(parts[2]), let macText = parts.last, macText.count == 43, let mac = Base64URL.decode(macText)
        else { return .failure(.malformed) }
        var locale: String?
        if parts.count == 5 {
            guard isLocaleTag(parts[3]) else { return .failure(.malformed) }
            locale = String(decoding: parts[3], as: UTF8.self)
        }
        var uri: String?
        let uriText = parts[1].dropFirst()
        if !uriText.isEmpty {
            guard let bytes = Base64URL.decode(uriText), !bytes.isEmpty, let decoded = String(validating: bytes, as: UTF8.self),
                !decoded.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
            else { return .failure(.malformed) }
            uri = decoded
        }
        let signed = Array(utf8[..<macText.startIndex].dropLast())  // everything before the last "."
        let verified = signed.withUnsafeBufferPointer { message in
            context(for: user).withUnsafeBufferPointer { keys.verify(prefix: $0, message, mac: mac) }
        }
        guard verified else { return .failure(.signature) }
        guard issuedAt - now <= maximumClockSkewSeconds else { return .failure(.future) }
        guard now - issuedAt < maxAge else { return .failure(.expired) }
        return .success(
            SessionToken(
                id: String(decoding: parts[0], as: UTF8.self), viewURI: uri, lazy: kind == UInt8(ascii: "l"),
                issuedAt: issuedAt, locale: locale, encoded: text))
    }

    /// The identifier a token text starts with, without reading (or verifying) the rest: what
    /// names a held session, whose stored token the text must then equal. `nil` when the text
    /// cannot be a token.
    public static func identifier(of text: String) -> String? {
        let utf8 = text.utf8
        let count = utf8.count
        guard count > 22, count <= maximumBytes else { return nil }
        // The bytes are checked in place; the identifier is copied out only when it is one.
        let checked: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
            bytes[22] == UInt8(ascii: ".") && SessionIdentifier.isWellFormed(bytes.prefix(22))
        }
        if checked == false { return nil }
        if checked == nil {
            guard utf8.dropFirst(22).first == UInt8(ascii: "."), SessionIdentifier.isWellFormed(utf8.prefix(22))
            else { return nil }
        }
        return String(decoding: utf8.prefix(22), as: UTF8.self)
    }

    public var description: String { encoded }

    /// Whether `text` is this token (the server issued exactly that text), compared byte for
    /// byte in constant time (``ConstantTime``).
    public func isEncoded(as text: String) -> Bool { ConstantTime.equal(encoded, text) }

    /// Whether the token carries a view URI (so any process can rebuild its session).
    public var canRebuild: Bool { viewURI != nil }

    /// When the token stops being accepted, in seconds since the epoch.
    public func expiry(maxAge: Int64) -> Int64 { issuedAt + maxAge }

    public static func == (lhs: SessionToken, rhs: SessionToken) -> Bool { lhs.encoded == rhs.encoded }

    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }

    /// What the MAC covers first: a context label (then the token's text before its MAC).
    private static let context = Array("hub-session.v1:".utf8)

    /// What the MAC covers before the token text: the context, and the user's subject for a
    /// session a user opened.
    private static func context(for user: HubUser?) -> [UInt8] {
        guard let user else { return context }
        return context + Array("user:".utf8) + Array(user.subject.utf8) + [UInt8(ascii: "\n")]
    }

    /// Whether `bytes` can be a token's locale: 1 to 35 ASCII letters, digits and `-` (a BCP 47
    /// tag as `server.json` `locales` lists it; its own checks are stricter).
    static func isLocaleTag(_ bytes: some Collection<UInt8>) -> Bool {
        (1...35).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                    return true
                default: return false
                }
            }
    }

    /// 1 to 12 decimal digits, no sign or leading zero.
    private static func decimal(_ bytes: some Collection<UInt8>) -> Int64? {
        guard (1...12).contains(bytes.count), bytes.first != UInt8(ascii: "0") || bytes.count == 1 else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }
}
