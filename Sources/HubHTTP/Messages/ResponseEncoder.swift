import HubPrimitives

/// Writes a response head. The server owns framing: `Content-Length`, `Transfer-Encoding`,
/// `Connection` and `Date` set by a responder are replaced.
enum ResponseEncoder {
    enum Framing {
        /// `Content-Length: n` (also sent on HEAD, the length GET would have).
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// No framing header: 1xx/204/304, or a close-delimited stream for an HTTP/1.0 peer.
        case none
    }

    static func head(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, keepAlive: Bool,
        version: HTTPVersion, requestId: RequestID.Value?
    ) -> [UInt8] {
        let capacity = Self.capacity(status: status, headers: headers, requestId: requestId)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            initialized = encode(
                into: buffer.baseAddress!, capacity: capacity, status: status, headers: headers, framing: framing,
                keepAlive: keepAlive, version: version, requestId: requestId)
        }
    }

    /// Writes the head into `scratch` when it fits (else into an array of its own) and hands it
    /// to `body`, which must not keep it: the connection's send path, which writes every head
    /// into its loop's buffer and copies only what the socket does not take at once.
    static func withHead<Result>(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, keepAlive: Bool,
        version: HTTPVersion, requestId: RequestID.Value?, scratch: UnsafeMutableBufferPointer<UInt8>?,
        _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        let capacity = Self.capacity(status: status, headers: headers, requestId: requestId)
        guard let scratch, let base = scratch.baseAddress, capacity <= scratch.count else {
            let head = head(
                status: status, headers: headers, framing: framing, keepAlive: keepAlive, version: version,
                requestId: requestId)
            return head.withUnsafeBytes(body)
        }
        let count = encode(
            into: base, capacity: capacity, status: status, headers: headers, framing: framing, keepAlive: keepAlive,
            version: version, requestId: requestId)
        return body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// An upper bound of the head's size, so it is written without a capacity check per byte:
    /// the fields as given (name, ": ", value, CRLF), the reason phrase and request id, and at
    /// most `fixedBytes` for the rest.
    private static func capacity(status: HTTPStatus, headers: HTTPHeaders, requestId: RequestID.Value?) -> Int {
        Self.fixedBytes + status.reasonPhrase.utf8.count + (requestId?.utf8Count ?? 0) + headers.encodedFieldBytes
    }

    /// Writes the head at `base` (room for `capacity` bytes, from ``capacity(status:headers:requestId:)``);
    /// returns its length.
    private static func encode(
        into base: UnsafeMutablePointer<UInt8>, capacity: Int, status: HTTPStatus, headers: HTTPHeaders,
        framing: Framing, keepAlive: Bool, version: HTTPVersion, requestId: RequestID.Value?
    ) -> Int {
        let date = DateCache.shared.current
        var writer = HeadWriter(base: base, capacity: capacity)
        writer.append("HTTP/1.1 ")
        writer.appendDecimal(status.code)
        writer.append(0x20)
        writer.appendSanitized(status.reasonPhrase)
        writer.appendCRLF()
        var hasRequestId = false
        var hasContentTypeOptions = false
        headers.forEachFieldBytes { name, value in
            // Compared only when the length can match (most names are none of these).
            switch name.count {
            case 14 where ASCII.caseInsensitiveEquals(name, "content-length"),
                17 where ASCII.caseInsensitiveEquals(name, "transfer-encoding"),
                10 where ASCII.caseInsensitiveEquals(name, "connection"),
                4 where ASCII.caseInsensitiveEquals(name, "date"):
                return
            case 12 where ASCII.caseInsensitiveEquals(name, "x-request-id"):
                hasRequestId = true
            case 22 where ASCII.caseInsensitiveEquals(name, "x-content-type-options"):
                hasContentTypeOptions = true
            default:
                break
            }
            writer.appendSanitized(name)
            writer.append(": ")
            writer.appendSanitized(value)
            writer.appendCRLF()
        }
        if let requestId, !hasRequestId {
            writer.append("X-Request-Id: ")
            requestId.write(into: &writer)
            writer.appendCRLF()
        }
        // Every response: a browser never second-guesses a declared Content-Type (JSON, problems,
        // event streams, the preview page).
        if !hasContentTypeOptions { writer.append("X-Content-Type-Options: nosniff\r\n") }
        writer.append("Date: ")
        date.withUnsafeBufferPointer { writer.append($0.prefix(Self.maximumDateBytes)) }
        writer.appendCRLF()
        switch framing {
        case .length(let length):
            writer.append("Content-Length: ")
            writer.appendDecimal(length)
            writer.appendCRLF()
        case .chunked:
            writer.append("Transfer-Encoding: chunked\r\n")
        case .none:
            break
        }
        if !keepAlive {
            writer.append("Connection: close\r\n")
        } else if version == .http1_0 {
            writer.append("Connection: keep-alive\r\n")
        }
        writer.appendCRLF()
        return writer.count
    }

    /// The most an IMF-fixdate takes (29 bytes; more is cut).
    static let maximumDateBytes = 29
    /// Room for what the head holds besides the fields, reason phrase and request id: the status
    /// line's other bytes (9 + 20 digits + 1 + 2), X-Request-Id's frame (16),
    /// X-Content-Type-Options (33), Date (6 + 29 + 2), Content-Length (16 + 20 digits + 2) or
    /// Transfer-Encoding (28), Connection (24), the final CRLF (2): 182 at most.
    static let fixedBytes = 192

    /// The frame of one chunk: size in hex, CRLF, data, CRLF.
    static func chunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 12)
        out.append(contentsOf: String(data.count, radix: 16).utf8)
        out.append(contentsOf: [0x0D, 0x0A])
        out.append(contentsOf: data)
        out.append(contentsOf: [0x0D, 0x0A])
        return out
    }

    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
    static let continueHead: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}
