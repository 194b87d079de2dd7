import HubPrimitives
/// W3C Trace Context (https://www.w3.org/TR/trace-context/), version `00`:
/// `traceparent: 00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>` and `tracestate`.
///
/// A request's valid `traceparent` is continued (same trace id, a new span id for this server);
/// an absent or invalid one starts a new trace, and its `tracestate` is then dropped, as the
/// specification requires. Every upstream fetch gets a child: same trace id, a fresh span id.
package struct TraceContext: Sendable, Equatable {
    package static let parentHeader = "traceparent"
    package static let stateHeader = "tracestate"

    /// 32 lowercase hex digits, not all zero.
    package let traceID: String
    /// This span's 16 lowercase hex digits, not all zero.
    package let spanID: String
    /// The trace flags byte as 2 hex digits (`01` sampled).
    package let flags: String
    /// The vendor `tracestate`, kept only with a valid `traceparent`.
    package let state: String?

    /// The `traceparent` value naming this span.
    package var traceParent: String { "00-\(traceID)-\(spanID)-\(flags)" }

    /// Continues the request's trace, or starts one; this server's span gets a new id either way.
    package init(traceParent: String?, traceState: String?) {
        if let parsed = traceParent.flatMap(Self.parse) {
            traceID = parsed.traceID
            flags = parsed.flags
            let state = traceState.map { String($0.trimmingOWS()) }
            self.state = (state?.isEmpty ?? true) || (state?.utf8.count ?? 0) > 512 ? nil : state
        } else {
            traceID = Self.randomHex(bytes: 16)
            flags = "00"
            state = nil
        }
        spanID = Self.randomHex(bytes: 8)
    }

    private init(traceID: String, spanID: String, flags: String, state: String?) {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
        self.state = state
    }

    /// A child span (the same trace, a fresh span id), for one upstream fetch.
    package func child() -> TraceContext {
        TraceContext(traceID: traceID, spanID: Self.randomHex(bytes: 8), flags: flags, state: state)
    }

    /// The headers that carry this span to an upstream.
    package var headers: [(name: String, value: String)] {
        var headers = [(name: Self.parentHeader, value: traceParent)]
        if let state { headers.append((name: Self.stateHeader, value: state)) }
        return headers
    }

    /// Parses a `traceparent` value; nil when invalid. Version `ff` is invalid; a future version
    /// is read by its version-00 prefix (and must then be followed by `-` or end).
    package static func parse(_ value: String) -> (traceID: String, parentID: String, flags: String)? {
        let text = Array(value.trimmingOWS().utf8)
        guard text.count >= 55, text[2] == UInt8(ascii: "-"), text[35] == UInt8(ascii: "-"), text[52] == UInt8(ascii: "-")
        else { return nil }
        let version = text[0..<2], traceID = text[3..<35], parentID = text[36..<52], flags = text[53..<55]
        guard [version, traceID, parentID, flags].allSatisfy({ $0.allSatisfy(isLowerHex) }) else { return nil }
        guard !version.elementsEqual("ff".utf8) else { return nil }
        if version.elementsEqual("00".utf8) {
            guard text.count == 55 else { return nil }
        } else if text.count > 55, text[55] != UInt8(ascii: "-") {
            return nil
        }
        guard traceID.contains(where: { $0 != UInt8(ascii: "0") }), parentID.contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        return (String(decoding: traceID, as: UTF8.self), String(decoding: parentID, as: UTF8.self),
                String(decoding: flags, as: UTF8.self))
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }

    /// `bytes` random bytes as lowercase hex; never all zero.
    /// The `traceparent` of a new trace (flags `00`) and this server's span in it, as one string
    /// built in place: what a request without a valid `traceparent` gets, so the common case
    /// makes one allocation instead of an id, a span and their interpolation.
    package static func newTraceParent() -> String {
        while true {
            let (traceHigh, traceLow, span, _) = SecureRandom.next256()
            // The specification forbids all-zero ids (a 2^-64 event at worst: draw again).
            guard traceHigh | traceLow != 0, span != 0 else { continue }
            return String(unsafeUninitializedCapacity: 55) { text in
                text[0] = UInt8(ascii: "0")
                text[1] = UInt8(ascii: "0")
                text[2] = UInt8(ascii: "-")
                Self.writeHex(traceHigh, into: text, at: 3)
                Self.writeHex(traceLow, into: text, at: 19)
                text[35] = UInt8(ascii: "-")
                Self.writeHex(span, into: text, at: 36)
                text[52] = UInt8(ascii: "-")
                text[53] = UInt8(ascii: "0")
                text[54] = UInt8(ascii: "0")
                return 55
            }
        }
    }

    private static func writeHex(_ word: UInt64, into text: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<8 {
            let byte = UInt8(truncatingIfNeeded: word >> UInt64(56 - index * 8))
            text[offset + 2 * index] = Hex.digit(byte >> 4)
            text[offset + 2 * index + 1] = Hex.digit(byte & 0x0F)
        }
    }

    package static func randomHex(bytes: Int) -> String {
        while true {
            let text = SecureRandom.hex(bytes: bytes)
            if text.utf8.contains(where: { $0 != UInt8(ascii: "0") }) { return text }
        }
    }
}

extension TraceContext {
    /// The trace id of a `traceparent` value this server wrote (nil when there is none).
    package static func traceID(of traceParent: String?) -> String? {
        guard let traceParent, traceParent.utf8.count == 55 else { return nil }
        let utf8 = traceParent.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: 3)
        return String(traceParent[start..<utf8.index(start, offsetBy: 32)])
    }

    /// The trace headers for one upstream fetch on behalf of `traceParent` (this server's span
    /// as the engine's request carries it): a child span; none when the request has no trace.
    package static func upstreamHeaders(traceParent: String?, traceState: String?) -> [(name: String, value: String)] {
        guard let traceParent, TraceContext.parse(traceParent) != nil else { return [] }
        return TraceContext(traceParent: traceParent, traceState: traceState).headers
    }
}
