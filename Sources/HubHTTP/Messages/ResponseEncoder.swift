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
        version: HTTPVersion, requestId: String?
    ) -> [UInt8] {
        var out: [UInt8] = []
        // The whole head in one allocation: the fields as given, plus at most 160 bytes for the
        // status line, Date, Content-Length or Transfer-Encoding, and Connection.
        var capacity = 160 + (requestId?.utf8.count ?? 0) + 16
        for field in headers.fields { capacity += field.name.utf8.count + field.value.utf8.count + 4 }
        out.reserveCapacity(capacity)
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status.code, to: &out)
        out.append(0x20)
        appendSanitized(status.reasonPhrase, to: &out)
        out.append(contentsOf: [0x0D, 0x0A])
        var hasRequestId = false
        for field in headers {
            let name = field.name
            // Compared only when the length can match (most names are none of these).
            switch name.utf8.count {
            case 14 where name.asciiCaseInsensitiveEquals("content-length"),
                17 where name.asciiCaseInsensitiveEquals("transfer-encoding"),
                10 where name.asciiCaseInsensitiveEquals("connection"),
                4 where name.asciiCaseInsensitiveEquals("date"):
                continue
            case 12 where name.asciiCaseInsensitiveEquals("x-request-id"):
                hasRequestId = true
            default:
                break
            }
            appendSanitized(name, to: &out)
            out.append(contentsOf: [UInt8(ascii: ":"), 0x20])
            appendSanitized(field.value, to: &out)
            out.append(contentsOf: [0x0D, 0x0A])
        }
        if let requestId, !hasRequestId {
            out.append(contentsOf: "X-Request-Id: ".utf8)
            appendSanitized(requestId, to: &out)
            out.append(contentsOf: [0x0D, 0x0A])
        }
        out.append(contentsOf: "Date: ".utf8)
        out.append(contentsOf: DateCache.shared.current)
        out.append(contentsOf: [0x0D, 0x0A])
        switch framing {
        case .length(let length):
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(length, to: &out)
            out.append(contentsOf: [0x0D, 0x0A])
        case .chunked:
            out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        case .none:
            break
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if version == .http1_0 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: [0x0D, 0x0A])
        return out
    }

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

    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        out.append(contentsOf: String(value).utf8)
    }

    /// Appends a header name or value with CR, LF and NUL replaced by spaces (no response splitting).
    /// (A scan, then one copy: header values are almost always clean.)
    private static func appendSanitized(_ string: String, to out: inout [UInt8]) {
        // In place for native strings (no copy of the string to call the mutating `withUTF8`).
        let appended: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            if !bytes.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                out.append(byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte)
            }
        }
        if appended == nil {
            for byte in string.utf8 { out.append(byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte) }
        }
    }
}
