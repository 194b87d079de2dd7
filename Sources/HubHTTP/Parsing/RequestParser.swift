/// An incremental HTTP/1.1 request parser: a pure state machine over bytes, no I/O.
///
/// Feed bytes with ``append(_:)`` and call ``parse()`` until it returns `.needMoreData`.
/// Limits come from ``HTTPServerConfiguration/Limits``; framing follows RFC 9112 (sections cited
/// inline). Any thrown error is final: the connection answers it and closes. An error found once
/// the message is framed (a target that does not decode) is ``Result/rejected(_:_:)`` instead:
/// answered, and the connection carries on (RFC 9112 section 9.3: close only when framing is in doubt).
struct RequestParser {
    enum Result {
        /// Feed more bytes.
        case needMoreData
        /// The head asked for `Expect: 100-continue` and no content has arrived yet: send
        /// `100 Continue`, then call ``parse()`` again.
        case expectContinue
        /// A complete request.
        case request(HTTPRequest)
        /// A complete, correctly framed request that is nevertheless invalid (its target does not
        /// percent-decode): answer the error; the connection may carry on.
        case rejected(HTTPRequest, HTTPParseError)
    }

    /// Which part of a request the parser is waiting for (drives the connection's deadlines).
    enum Phase: Equatable {
        /// Between requests, nothing buffered.
        case idle
        /// Inside the request line or header section.
        case head
        /// Inside the content (or the chunked trailer section).
        case body
    }

    private enum State {
        case requestLine, headers, fixedBody(remaining: Int), chunkSize, chunkData(remaining: Int), chunkDataEnd, trailers
        case failed(HTTPParseError)
    }

    let limits: HTTPServerConfiguration.Limits
    private(set) var buffer: [UInt8] = []
    private var readIndex = 0
    private var scanIndex = 0
    private var state: State = .requestLine

    // The request under construction.
    private var method = HTTPMethod.get
    private var target: [UInt8] = []
    private var version = HTTPVersion.http1_1
    private var headers: [HTTPHeaders.Field] = []
    private var headerBytes = 0
    private var body: [UInt8] = []
    private var continuePending = false
    private var trailerCount = 0

    init(limits: HTTPServerConfiguration.Limits) {
        self.limits = limits
    }

    /// Bytes received but not yet consumed by a complete request.
    var bufferedByteCount: Int { buffer.count - readIndex }

    var phase: Phase {
        switch state {
        case .requestLine: readIndex == buffer.count ? .idle : .head
        case .headers, .failed: .head
        case .fixedBody, .chunkSize, .chunkData, .chunkDataEnd, .trailers: .body
        }
    }

    /// Appends received bytes, first dropping what earlier requests consumed.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 256 * 1024)
        } else {
            buffer.removeSubrange(0..<readIndex)
        }
        scanIndex -= readIndex
        readIndex = 0
    }

    /// Parses as far as the buffered bytes allow.
    mutating func parse() throws(HTTPParseError) -> Result {
        do {
            return try parseStep()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func parseStep() throws(HTTPParseError) -> Result {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .requestLine:
                // RFC 9112 section 2.2: ignore at least one empty line before the request line.
                while buffer.count - readIndex >= 2, buffer[readIndex] == 0x0D, buffer[readIndex + 1] == 0x0A {
                    readIndex += 2
                    scanIndex = readIndex
                }
                guard let line = try nextLine(maxBytes: limits.requestLineBytes, tooLong: .requestLineTooLong) else {
                    return .needMoreData
                }
                try parseRequestLine(line)
                state = .headers
            case .headers:
                guard let line = try nextLine(maxBytes: limits.headerBytes - headerBytes, tooLong: .headersTooLarge) else {
                    return .needMoreData
                }
                headerBytes += line.count + 2
                if line.isEmpty {
                    if let result = try headersComplete() { return result }
                } else {
                    guard headers.count < limits.headerCount else { throw .tooManyHeaders }
                    headers.append(try parseField(line))
                }
            case .fixedBody(let remaining):
                let available = min(remaining, buffer.count - readIndex)
                if available == 0 { return .needMoreData }
                if body.isEmpty && available == remaining {
                    body = Array(buffer[readIndex..<readIndex + available])
                } else {
                    body.append(contentsOf: buffer[readIndex..<readIndex + available])
                }
                readIndex += available
                scanIndex = readIndex
                if available == remaining { return finish() }
                state = .fixedBody(remaining: remaining - available)
            case .chunkSize:
                // RFC 9112 section 7.1.1: extensions are ignored, but their bytes count against the
                // header section's limit (with the trailer fields), so they stay bounded.
                guard let line = try nextLine(maxBytes: max(64, limits.headerBytes - headerBytes), tooLong: .headersTooLarge) else {
                    return .needMoreData
                }
                let size = try parseChunkSize(line)
                headerBytes += max(0, line.count - 16)
                if size == 0 {
                    state = .trailers
                } else {
                    guard size <= limits.bodyBytes - body.count else { throw .bodyTooLarge }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let available = min(remaining, buffer.count - readIndex)
                if available == 0 { return .needMoreData }
                body.append(contentsOf: buffer[readIndex..<readIndex + available])
                readIndex += available
                scanIndex = readIndex
                state = available == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - available)
            case .chunkDataEnd:
                guard buffer.count - readIndex >= 2 else {
                    if buffer.count > readIndex, buffer[readIndex] != 0x0D { throw .bad("invalid_chunk", "Chunk data is not followed by CRLF.") }
                    return .needMoreData
                }
                guard buffer[readIndex] == 0x0D, buffer[readIndex + 1] == 0x0A else {
                    throw .bad("invalid_chunk", "Chunk data is not followed by CRLF.")
                }
                readIndex += 2
                scanIndex = readIndex
                state = .chunkSize
            case .trailers:
                // RFC 9112 section 7.1.2: trailer fields are read, checked like headers, and dropped.
                guard let line = try nextLine(maxBytes: limits.headerBytes - headerBytes, tooLong: .headersTooLarge) else {
                    return .needMoreData
                }
                headerBytes += line.count + 2
                if line.isEmpty { return finish() }
                trailerCount += 1
                guard headers.count + trailerCount <= limits.headerCount else { throw .tooManyHeaders }
                _ = try parseField(line)
            }
        }
    }

    /// The next CRLF-terminated line (without the CRLF), or nil when incomplete.
    /// A bare LF is an error (RFC 9112 section 2.2 lets a server reject it; DESIGN.md does).
    private mutating func nextLine(maxBytes: Int, tooLong: HTTPParseError) throws(HTTPParseError) -> ArraySlice<UInt8>? {
        let lineFeed: Int? = buffer.withUnsafeBufferPointer { bytes in
            var index = scanIndex
            while index < bytes.count {
                if bytes[index] == 0x0A { return index }
                index += 1
            }
            return nil
        }
        guard let lineFeed else {
            scanIndex = buffer.count
            if buffer.count - readIndex > maxBytes + 1 { throw tooLong }
            return nil
        }
        guard lineFeed > readIndex, buffer[lineFeed - 1] == 0x0D else {
            throw .bad("bare_lf", "A line ends with a bare LF.")
        }
        if lineFeed - 1 - readIndex > maxBytes { throw tooLong }
        let line = buffer[readIndex..<lineFeed - 1]
        readIndex = lineFeed + 1
        scanIndex = readIndex
        return line
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 section 3).
    private mutating func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        guard let firstSpace = line.firstIndex(of: 0x20) else {
            throw .bad("invalid_request_line", "The request line is malformed.")
        }
        let methodBytes = line[line.startIndex..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(Self.isTokenByte) else {
            throw .bad("invalid_method", "The request method is not a valid token.")
        }
        let rest = line[(firstSpace + 1)...]
        guard let secondSpace = rest.firstIndex(of: 0x20) else {
            throw .bad("invalid_request_line", "The request line is malformed.")
        }
        let targetBytes = rest[rest.startIndex..<secondSpace]
        let versionBytes = rest[(secondSpace + 1)...]
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .bad("invalid_target", "The request target is empty or has invalid characters.")
        }
        version = try Self.parseVersion(versionBytes)
        method = Self.knownMethod(methodBytes) ?? HTTPMethod(String(decoding: methodBytes, as: UTF8.self))
        if method == .connect {
            throw HTTPParseError(.notImplemented, "method_not_implemented", "CONNECT is not supported.")
        }
        let isAsterisk = targetBytes.count == 1 && targetBytes.first == UInt8(ascii: "*")
        if isAsterisk && method != .options {
            throw .bad("invalid_target", "The asterisk-form target is only valid for OPTIONS.")
        }
        target = Array(targetBytes)
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        let prefix: [UInt8] = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.prefix(5).elementsEqual(prefix),
              let major = RequestTarget.hexValue(bytes[bytes.startIndex + 5]), major <= 9,
              bytes[bytes.startIndex + 6] == UInt8(ascii: "."),
              let minor = RequestTarget.hexValue(bytes[bytes.startIndex + 7]), minor <= 9
        else {
            throw .bad("invalid_version", "The HTTP version is malformed.")
        }
        guard major == 1 else {
            throw HTTPParseError(.httpVersionNotSupported, "version_not_supported", "Only HTTP/1.0 and HTTP/1.1 are supported.")
        }
        return minor == 0 ? .http1_0 : .http1_1
    }

    private static func knownMethod(_ bytes: ArraySlice<UInt8>) -> HTTPMethod? {
        switch bytes.count {
        case 3:
            if bytes.elementsEqual("GET".utf8) { return .get }
            if bytes.elementsEqual("PUT".utf8) { return .put }
        case 4:
            if bytes.elementsEqual("POST".utf8) { return .post }
            if bytes.elementsEqual("HEAD".utf8) { return .head }
        case 6:
            if bytes.elementsEqual("DELETE".utf8) { return .delete }
        default:
            break
        }
        return nil
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 section 5).
    private func parseField(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPHeaders.Field {
        let first = line[line.startIndex]
        if first == 0x20 || first == 0x09 {
            // RFC 9112 section 5.2: obs-fold is rejected with 400.
            throw .bad("obs_fold", "Header line folding (obs-fold) is not allowed.")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw .bad("invalid_header", "A header line has no colon.")
        }
        let name = line[line.startIndex..<colon]
        // RFC 9112 section 5.1: no whitespace between the field name and the colon.
        guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
            throw .bad("invalid_header_name", "A header field name is empty or has invalid characters.")
        }
        var valueStart = colon + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        // field-value: VCHAR, SP, HTAB and obs-text; CR, LF, NUL and other controls are invalid (section 5.5).
        for byte in value where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            throw .bad("invalid_header_value", "A header field value has invalid characters.")
        }
        return (name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Applies the framing rules once the header section is complete.
    private mutating func headersComplete() throws(HTTPParseError) -> Result? {
        var hostCount = 0
        var contentLengths: [Substring] = []
        var transferCodings: [Substring] = []
        var hasTransferEncoding = false
        var expect: String?
        for field in headers {
            if field.name.asciiCaseInsensitiveEquals("host") {
                hostCount += 1
                guard field.value.utf8.allSatisfy(Self.isHostByte) else {
                    throw .bad("invalid_host", "The Host header is not a valid host and port.")
                }
            } else if field.name.asciiCaseInsensitiveEquals("content-length") {
                contentLengths.append(Substring(field.value))
            } else if field.name.asciiCaseInsensitiveEquals("transfer-encoding") {
                hasTransferEncoding = true
                for item in field.value.split(separator: ",", omittingEmptySubsequences: true) {
                    let coding = item.trimmingOWS()
                    if !coding.isEmpty { transferCodings.append(coding) }
                }
            } else if field.name.asciiCaseInsensitiveEquals("expect") {
                expect = field.value
            }
        }
        // RFC 9112 section 3.2: HTTP/1.1 needs exactly one Host.
        if version == .http1_1 && hostCount == 0 { throw .bad("missing_host", "An HTTP/1.1 request needs a Host header.") }
        if hostCount > 1 { throw .bad("duplicate_host", "The request has more than one Host header.") }

        var chunked = false
        var length = 0
        if hasTransferEncoding {
            // RFC 9112 section 6.1 and 6.3: Transfer-Encoding with Content-Length, in HTTP/1.0, or
            // without chunked as the final coding is faulty framing.
            if !contentLengths.isEmpty {
                throw .bad("ambiguous_framing", "The request has both Content-Length and Transfer-Encoding.")
            }
            if version == .http1_0 { throw .bad("invalid_transfer_encoding", "Transfer-Encoding is not allowed in HTTP/1.0.") }
            guard let last = transferCodings.last, last.asciiCaseInsensitiveEquals("chunked") else {
                throw .bad("invalid_transfer_encoding", "The final transfer coding is not chunked.")
            }
            for coding in transferCodings.dropLast() {
                if coding.asciiCaseInsensitiveEquals("chunked") {
                    throw .bad("invalid_transfer_encoding", "chunked is applied more than once.")
                }
                throw HTTPParseError(.notImplemented, "transfer_coding_not_implemented", "Only the chunked transfer coding is supported.")
            }
            chunked = true
        } else if !contentLengths.isEmpty {
            // RFC 9112 section 6.3: duplicate or invalid Content-Length is unrecoverable.
            guard contentLengths.count == 1 else {
                throw .bad("duplicate_content_length", "The request has more than one Content-Length.")
            }
            let digits = contentLengths[0].utf8
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw .bad("invalid_content_length", "The Content-Length is not a valid number.")
            }
            length = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            guard length <= limits.bodyBytes else { throw .bodyTooLarge }
        }

        if let expect, version == .http1_1 {
            guard expect.trimmingOWS().asciiCaseInsensitiveEquals("100-continue") else {
                throw HTTPParseError(.expectationFailed, "expectation_failed", "Only Expect: 100-continue is supported.")
            }
            continuePending = chunked || length > 0
        }

        // A target that does not decode is an error of this request only: framing is sound.
        do { decodedTarget = try RequestTarget.parse(target) } catch { targetError = error }
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

    /// chunk-size [ chunk-ext ] (RFC 9112 section 7.1); extensions are ignored.
    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size = 0
        var index = line.startIndex
        while index < line.endIndex, let digit = RequestTarget.hexValue(line[index]) {
            guard size <= (Int.max >> 4) else { throw .bad("invalid_chunk", "The chunk size is too large.") }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > line.startIndex else { throw .bad("invalid_chunk", "The chunk size is not hexadecimal.") }
        while index < line.endIndex, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        if index < line.endIndex {
            guard line[index] == UInt8(ascii: ";") else { throw .bad("invalid_chunk", "The chunk size line is malformed.") }
            for byte in line[index...] where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                throw .bad("invalid_chunk", "A chunk extension has invalid characters.")
            }
        }
        return size
    }

    /// The complete request, or the request with the error found after framing.
    private mutating func finish() -> Result {
        let error = targetError
        targetError = nil
        let request = finishRequest()
        if let error { return .rejected(request, error) }
        return .request(request)
    }

    private mutating func finishRequest() -> HTTPRequest {
        // Decoding errors surface through `decodeTarget`, called before this point.
        let parts = decodedTarget ?? RequestTarget(path: "/", query: [])
        let request = HTTPRequest(
            method: method, target: String(decoding: target, as: UTF8.self), path: parts.path, query: parts.query,
            version: version, headers: HTTPHeaders(headers), body: body
        )
        headers = []
        headerBytes = 0
        trailerCount = 0
        body = []
        decodedTarget = nil
        state = .requestLine
        return request
    }

    private var decodedTarget: RequestTarget?
    private var targetError: HTTPParseError?

    /// Bytes of `uri-host [":" port]` (RFC 3986 reg-name, IP literals, pct-encoding).
    static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    /// tchar (RFC 9110 section 5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
