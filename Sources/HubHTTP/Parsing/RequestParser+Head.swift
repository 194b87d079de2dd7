import HubPrimitives

/// The request line, header fields and message framing of ``RequestParser``
/// (RFC 9112 sections 3, 5 and 6).
extension RequestParser {
    /// What the request line says.
    struct RequestLine {
        var method: HTTPMethod
        /// Where the target lies in the line (it is copied out with the header fields, once).
        var target: Range<Int>
        var version: HTTPVersion
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 section 3), read in
    /// place from the parser's buffer.
    static func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> RequestLine {
        guard let firstSpace = ByteScan.index(of: 0x20, in: line, from: 0) else {
            throw .bad("invalid_request_line", "The request line is malformed.")
        }
        let methodBytes = UnsafeBufferPointer(rebasing: line[..<firstSpace])
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
            throw .bad("invalid_method", "The request method is not a valid token.")
        }
        guard let secondSpace = ByteScan.index(of: 0x20, in: line, from: firstSpace + 1) else {
            throw .bad("invalid_request_line", "The request line is malformed.")
        }
        let targetBytes = UnsafeBufferPointer(rebasing: line[(firstSpace + 1)..<secondSpace])
        guard !targetBytes.isEmpty, ByteScan.isVisibleASCII(UnsafeRawBufferPointer(targetBytes)) else {
            throw .bad("invalid_target", "The request target is empty or has invalid characters.")
        }
        let version = try parseVersion(UnsafeBufferPointer(rebasing: line[(secondSpace + 1)...]))
        let method = knownMethod(methodBytes) ?? HTTPMethod(String(decoding: methodBytes, as: UTF8.self))
        if method == .connect {
            throw HTTPParseError(.notImplemented, "method_not_implemented", "CONNECT is not supported.")
        }
        let isAsterisk = targetBytes.count == 1 && targetBytes[0] == UInt8(ascii: "*")
        if isAsterisk && method != .options {
            throw .bad("invalid_target", "The asterisk-form target is only valid for OPTIONS.")
        }
        return RequestLine(method: method, target: (firstSpace + 1)..<secondSpace, version: version)
    }

    private static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        // "HTTP/" compared byte by byte (no array of the prefix per request).
        guard bytes.count == 8, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"),
              bytes[2] == UInt8(ascii: "T"), bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/"),
              let major = RequestTarget.hexValue(bytes[5]), major <= 9,
              bytes[6] == UInt8(ascii: "."),
              let minor = RequestTarget.hexValue(bytes[7]), minor <= 9
        else {
            throw .bad("invalid_version", "The HTTP version is malformed.")
        }
        guard major == 1 else {
            throw HTTPParseError(.httpVersionNotSupported, "version_not_supported", "Only HTTP/1.0 and HTTP/1.1 are supported.")
        }
        return minor == 0 ? .http1_0 : .http1_1
    }

    /// The methods the server routes, recognised without making a string.
    private static func knownMethod(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPMethod? {
        switch bytes.count {
        case 3:
            if bytes[0] == UInt8(ascii: "G"), bytes[1] == UInt8(ascii: "E"), bytes[2] == UInt8(ascii: "T") { return .get }
            if bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "U"), bytes[2] == UInt8(ascii: "T") { return .put }
        case 4:
            let word = UnsafeRawBufferPointer(bytes).loadUnaligned(as: UInt32.self)
            if word == Self.word("POST") { return .post }
            if word == Self.word("HEAD") { return .head }
        case 6:
            if bytes.elementsEqual("DELETE".utf8) { return .delete }
        default:
            break
        }
        return nil
    }

    /// Four ASCII bytes as the word an unaligned load of them gives (little- or big-endian alike).
    private static func word(_ text: StaticString) -> UInt32 {
        text.withUTF8Buffer { UnsafeRawBufferPointer($0).loadUnaligned(as: UInt32.self) }
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 section 5), read in place, and
    /// the field's role in framing.
    static func parseField(
        _ line: UnsafeBufferPointer<UInt8>
    ) throws(HTTPParseError) -> (parts: FieldLine, role: FramingFields.Role) {
        let first = line[0]
        if first == 0x20 || first == 0x09 {
            // RFC 9112 section 5.2: obs-fold is rejected with 400.
            throw .bad("obs_fold", "Header line folding (obs-fold) is not allowed.")
        }
        let parts = FieldLine(splitting: line)
        guard parts.nameEnd < line.count else { throw .bad("invalid_header", "A header line has no colon.") }
        let name = UnsafeBufferPointer(rebasing: line[..<parts.nameEnd])
        // RFC 9112 section 5.1: no whitespace between the field name and the colon.
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw .bad("invalid_header_name", "A header field name is empty or has invalid characters.")
        }
        let value = UnsafeBufferPointer(rebasing: line[parts.valueStart..<parts.valueEnd])
        // field-value: VCHAR, SP, HTAB and obs-text; CR, LF, NUL and other controls are invalid (section 5.5).
        guard ByteScan.isFieldValue(UnsafeRawBufferPointer(value)) else {
            throw .bad("invalid_header_value", "A header field value has invalid characters.")
        }
        let role = FramingFields.Role(name: name)
        if role == .host, !value.allSatisfy(isHostByte) { return (parts, .invalidHost) }
        return (parts, role)
    }

    /// Applies the framing rules once the header section is complete.
    mutating func headersComplete() throws(HTTPParseError) -> Result? {
        // RFC 9112 section 3.2: HTTP/1.1 needs exactly one Host.
        if framing.invalidHost { throw .bad("invalid_host", "The Host header is not a valid host and port.") }
        if version == .http1_1 && framing.hostCount == 0 { throw .bad("missing_host", "An HTTP/1.1 request needs a Host header.") }
        if framing.hostCount > 1 { throw .bad("duplicate_host", "The request has more than one Host header.") }

        var chunked = false
        var length = 0
        if framing.hasTransferEncoding {
            // RFC 9112 section 6.1 and 6.3: Transfer-Encoding with Content-Length, in HTTP/1.0, or
            // without chunked as the final coding is faulty framing.
            if framing.contentLengthCount > 0 {
                throw .bad("ambiguous_framing", "The request has both Content-Length and Transfer-Encoding.")
            }
            if version == .http1_0 { throw .bad("invalid_transfer_encoding", "Transfer-Encoding is not allowed in HTTP/1.0.") }
            guard let last = framing.transferCodings.last, last.asciiCaseInsensitiveEquals("chunked") else {
                throw .bad("invalid_transfer_encoding", "The final transfer coding is not chunked.")
            }
            for coding in framing.transferCodings.dropLast() {
                if coding.asciiCaseInsensitiveEquals("chunked") {
                    throw .bad("invalid_transfer_encoding", "chunked is applied more than once.")
                }
                throw HTTPParseError(.notImplemented, "transfer_coding_not_implemented", "Only the chunked transfer coding is supported.")
            }
            chunked = true
        } else if let contentLength = framing.contentLength {
            // RFC 9112 section 6.3: duplicate or invalid Content-Length is unrecoverable.
            guard framing.contentLengthCount == 1 else {
                throw .bad("duplicate_content_length", "The request has more than one Content-Length.")
            }
            let digits = contentLength.utf8
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw .bad("invalid_content_length", "The Content-Length is not a valid number.")
            }
            length = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard length <= limits.bodyBytes else { throw .bodyTooLarge }
        }

        if let expect = framing.expect, version == .http1_1 {
            guard expect.trimmingOWS().asciiCaseInsensitiveEquals("100-continue") else {
                throw HTTPParseError(.expectationFailed, "expectation_failed", "Only Expect: 100-continue is supported.")
            }
            continuePending = chunked || length > 0
        }

        // The target and the field lines, from the first to the empty line that ends the
        // section, copied once (together).
        let (head, decoded) = buffer.withUnsafeBufferPointer { bytes in
            let target = UnsafeBufferPointer(rebasing: bytes[targetRange])
            let head = fieldSpans.withUnsafeBufferPointer { spans in
                ReceivedFields(target: target, lines: UnsafeBufferPointer(rebasing: bytes[fieldsStart..<readIndex - 2]), spans: spans)
            }
            // A target that does not decode is an error of this request only: framing is sound.
            return (head, Swift.Result<RequestTarget, HTTPParseError> { () throws(HTTPParseError) in try RequestTarget.parse(target) })
        }
        receivedFields = head
        // Done with (a body still to come does not hold the loop's array).
        fieldSpans.removeAll(keepingCapacity: true)
        switch decoded {
        case .success(let parts): decodedTarget = parts
        case .failure(let error): targetError = error
        }
        body = []
        if chunked {
            state = .chunkSize
        } else if length > 0 {
            body.reserveCapacity(length)
            state = .fixedBody(remaining: length)
        } else {
            return finish()
        }
        if continuePending {
            continuePending = false
            if readIndex == buffer.count { return .expectContinue }
        }
        return nil
    }
}
