import HubCrypto
import HubHTTP
import HubOperations
import HubPrimitives

/// The signature of `POST /invalidate` (the scheme Stripe and Slack use for webhooks):
/// `Hub-Signature-Timestamp: <unix seconds>` and `Hub-Signature: sha256=<hex>`, the hex
/// HMAC-SHA256 of `"<timestamp>.<body>"` under one of `invalidation.secrets` (each as its UTF-8
/// bytes). Several `sha256=` values may be given, comma-separated (a sender signing with the
/// old and the new secret during a rotation); one that verifies is enough. MACs are compared in
/// constant time (``MACContexts/equal(_:_:)``).
struct InvalidationSignature: Sendable {
    /// What a request's signature says.
    enum Verdict: Equatable {
        case valid
        /// Missing, malformed, or no MAC verifies: 401 `invalid_signature`.
        case invalid
        /// A MAC verifies, but for a timestamp more than ``tolerance`` away from now (either
        /// way): 401 `stale_signature`.
        case stale
    }

    static let timestampHeader = "Hub-Signature-Timestamp"
    static let signatureHeader = "Hub-Signature"
    /// How far a timestamp may be from the server's clock, either way.
    static let toleranceSeconds: Int64 = 300
    /// Most `sha256=` values one header may carry.
    static let maximumSignatures = 8

    private let contexts: MACContexts
    private let keyCount: Int

    init(secrets: [String]) {
        contexts = MACContexts(keys: secrets.map { Array($0.utf8) })
        keyCount = secrets.count
    }

    /// Checks `body` against the request's headers at `now` (seconds since the epoch). The MAC
    /// is checked first: without a secret, every answer is `invalid`, whatever the timestamp.
    func verify(timestamp timestampText: String?, signature signatureText: String?, body: [UInt8], now: Int64) -> Verdict {
        guard keyCount > 0, let timestampText, let signatureText,
            let timestamp = Self.timestamp(timestampText)
        else { return .invalid }
        let presented = Self.presentedMACs(signatureText)
        guard !presented.isEmpty else { return .invalid }
        let prefix = Array("\(timestampText).".utf8)
        var expected = [UInt8](repeating: 0, count: 32)
        var verified = false
        for key in 0..<keyCount {
            let computed = prefix.withUnsafeBufferPointer { prefix in
                body.withUnsafeBufferPointer { message in
                    expected.withUnsafeMutableBufferPointer { out in
                        contexts.mac(prefix: prefix, message, key: key, into: out.baseAddress!)
                    }
                }
            }
            guard computed else { return .invalid }  // OpenSSL failed: fail closed
            for mac in presented where expected.withUnsafeBufferPointer({ MACContexts.equal($0.baseAddress!, mac) }) {
                verified = true
            }
        }
        guard verified else { return .invalid }
        return abs(now - timestamp) > Self.toleranceSeconds ? .stale : .valid
    }

    /// Unix seconds: 1 to 12 ASCII digits.
    static func timestamp(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard (1...12).contains(bytes.count), bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// The 32-byte MACs of a `Hub-Signature` value: `sha256=<64 hex digits>`, comma-separated;
    /// anything malformed is skipped.
    static func presentedMACs(_ text: String) -> [[UInt8]] {
        var macs: [[UInt8]] = []
        for part in text.split(separator: ",").prefix(maximumSignatures) {
            let trimmed = part.trimmingOWS()
            guard trimmed.hasPrefix("sha256=") else { continue }
            if let mac = decodeHex(trimmed.dropFirst("sha256=".count)), mac.count == 32 { macs.append(mac) }
        }
        return macs
    }

    private static func decodeHex(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}
