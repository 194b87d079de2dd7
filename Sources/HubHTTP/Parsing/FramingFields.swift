import HubPrimitives

/// The four header fields that decide how a request is framed (RFC 9112 sections 3.2, 6 and
/// 10.1.1), noted by ``RequestParser`` as each field line is read, while its name's bytes are at
/// hand: when the header section ends only these are checked, not every field again.
struct FramingFields {
    /// Which of the framing fields a field name is (ASCII case-insensitive).
    enum Role {
        case host, contentLength, transferEncoding, expect, other
        /// A `Host` field whose value is not `uri-host [":" port]`.
        case invalidHost

        /// Whether ``FramingFields/note(_:value:)`` reads the field's value (the host roles
        /// only count).
        var readsValue: Bool { self == .contentLength || self == .transferEncoding || self == .expect }

        /// The role of the field named `name`, a validated token (so `| 0x20` lowercases a
        /// letter and leaves every other token byte that could match a lowercase name as it is).
        init(name: UnsafeBufferPointer<UInt8>) {
            switch name.count {
            case 4 where Self.matches(name, "host"): self = .host
            case 6 where Self.matches(name, "expect"): self = .expect
            case 14 where Self.matches(name, "content-length"): self = .contentLength
            case 17 where Self.matches(name, "transfer-encoding"): self = .transferEncoding
            default: self = .other
            }
        }

        private static func matches(_ name: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
            lowercase.withUTF8Buffer { expected in
                for index in 0..<expected.count where name[index] | 0x20 != expected[index] { return false }
                return true
            }
        }
    }

    var hostCount = 0
    /// Whether a `Host` field's value was not `uri-host [":" port]`.
    var invalidHost = false
    var contentLengthCount = 0
    /// The first `Content-Length` value.
    var contentLength: String?
    var hasTransferEncoding = false
    /// The non-empty codings of every `Transfer-Encoding` field, in order.
    var transferCodings: [Substring] = []
    /// The last `Expect` value.
    var expect: String?

    mutating func note(_ role: Role, value: String) {
        switch role {
        case .host:
            hostCount += 1
        case .invalidHost:
            hostCount += 1
            invalidHost = true
        case .contentLength:
            contentLengthCount += 1
            if contentLength == nil { contentLength = value }
        case .transferEncoding:
            hasTransferEncoding = true
            for item in value.split(separator: ",", omittingEmptySubsequences: true) {
                let coding = item.trimmingOWS()
                if !coding.isEmpty { transferCodings.append(coding) }
            }
        case .expect:
            expect = value
        case .other:
            break
        }
    }
}
