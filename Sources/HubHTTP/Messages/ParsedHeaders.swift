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
package final class ParsedHeaders<Parsed: Sendable>: Sendable {
    /// Values kept per stripe.
    package static var capacity: Int { 16 }
    /// Longest header text kept.
    package static var maximumHeaderBytes: Int { 1024 }

    /// A header's bytes and what they parse to.
    private struct Last: Sendable {
        package let bytes: [UInt8]
        package let parsed: Parsed
    }

    private let recent = RecentHits<String, Parsed>(capacity: ParsedHeaders.capacity)
    /// What every thread parsed, consulted only when its own stripe misses: the same text then
    /// gives every thread the same value, so a `Set` it holds compares by identity (a session
    /// compares its client's components with each request's; two threads' separate parses of
    /// one header hashed every element on every request). At most ``sharedCapacity`` values,
    /// emptied when full.
    private let shared = Locked<[String: Parsed]>([:])
    /// Values ``shared`` keeps.
    package static var sharedCapacity: Int { 256 }
    /// Each stripe's last header (``parsed(field:of:)``), at most ``maximumHeaderBytes`` long.
    private let last = Striped<Last?> { nil }
    private let parse: @Sendable (String) -> Parsed

    package init(_ parse: @escaping @Sendable (String) -> Parsed) {
        self.parse = parse
    }

    /// What `header` parses to: a recent one, or parsed now (and kept when short enough).
    package func parsed(_ header: String) -> Parsed {
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
    package func parsed(field name: String, of headers: HTTPHeaders) -> Parsed? {
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
