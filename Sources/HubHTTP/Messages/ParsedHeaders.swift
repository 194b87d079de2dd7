import HubPrimitives
import HubSync

/// What recent values of one request header parse to, kept by their text: a client sends the
/// same `Hub-Components` and `Accept-Language` on every request, and parsing one (split, trim,
/// weigh, sort, join) cost 1-2 us per request. Per thread (``RecentHits``): at most ``capacity``
/// values per stripe, and only headers of at most ``maximumHeaderBytes`` (a longer one is parsed
/// each time), so what is kept stays small whatever clients send.
///
/// ``parsed(field:of:)`` reads a request's header in place and compares it with the thread's
/// last one byte for byte first, so the usual request, a client sending what it sent before,
/// makes no string at all.
///
/// `parse` must be a pure function of the header's text: a kept value is returned for as long
/// as it is kept.
///
/// Its lookups are inlinable, so each use is specialized in the module that makes it: called
/// unspecialized from another module, every request would look up the generic metadata of its
/// stripes, locks and values in the runtime's tables.
public final class ParsedHeaders<Parsed: Sendable>: Sendable {
    /// Values kept per stripe.
    @inlinable public static var capacity: Int { 16 }
    /// Longest header text kept.
    @inlinable public static var maximumHeaderBytes: Int { 1024 }

    /// A header's bytes and what they parse to.
    @usableFromInline
    struct Last: Sendable {
        @usableFromInline let bytes: [UInt8]
        @usableFromInline let parsed: Parsed

        @usableFromInline
        init(bytes: [UInt8], parsed: Parsed) {
            self.bytes = bytes
            self.parsed = parsed
        }
    }

    @usableFromInline let recent = RecentHits<String, Parsed>(capacity: ParsedHeaders.capacity)
    /// What every thread parsed, consulted only when its own stripe misses: the same text then
    /// gives every thread the same value, so a `Set` it holds compares by identity (a session
    /// compares its client's components with each request's; two threads' separate parses of
    /// one header hashed every element on every request). At most ``sharedCapacity`` values,
    /// emptied when full.
    @usableFromInline let shared = Locked<[String: Parsed]>([:])
    /// Values ``shared`` keeps.
    @inlinable public static var sharedCapacity: Int { 256 }
    /// Each stripe's last header (``parsed(field:of:)``), at most ``maximumHeaderBytes`` long.
    @usableFromInline let last = Striped<Last?> { nil }
    @usableFromInline let parse: @Sendable (String) -> Parsed

    public init(_ parse: @escaping @Sendable (String) -> Parsed) {
        self.parse = parse
    }

    /// What `header` parses to: a recent one, or parsed now (and kept when short enough).
    @inlinable
    public func parsed(_ header: String) -> Parsed {
        guard header.utf8.count <= Self.maximumHeaderBytes else { return parse(header) }
        if let parsed = recent.value(for: header) { return parsed }
        let parsed = shared.withLock { shared -> Parsed in
            if let parsed = shared[header] { return parsed }
            let parsed = parse(header)
            if shared.count >= Self.sharedCapacity { shared.removeAll(keepingCapacity: true) }
            shared[header] = parsed
            return parsed
        }
        recent.remember(parsed, for: header)
        return parsed
    }

    /// What the first field `name` of `headers` parses to; nil when there is none. Its bytes are
    /// read in place and answered from the calling thread's last header when they equal it;
    /// otherwise as ``parsed(_:)`` answers, and remembered as the last.
    @inlinable
    public func parsed(field name: String, of headers: HTTPHeaders) -> Parsed? {
        var result: Parsed?
        headers.withFirstValueBytes(named: name) { bytes in
            guard let bytes else { return }
            let stripe = last.current
            let hit = stripe.withLock { last -> Parsed? in
                guard let last, last.bytes.withUnsafeBufferPointer({ ASCII.bytesEqual($0, bytes) })
                else { return nil }
                return last.parsed
            }
            if let hit {
                result = hit
                return
            }
            let parsed = parsed(String(decoding: bytes, as: UTF8.self))
            if bytes.count <= Self.maximumHeaderBytes {
                let kept = Last(bytes: Array(bytes), parsed: parsed)
                stripe.withLock { $0 = kept }
            }
            result = parsed
        }
        return result
    }
}
