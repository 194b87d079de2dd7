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

    enum State {
        case requestLine, headers, fixedBody(remaining: Int), chunkSize, chunkData(remaining: Int), chunkDataEnd, trailers
        case failed(HTTPParseError)
    }

    let limits: HTTPServerConfiguration.Limits
    /// The peer's address, set on every request parsed (``HTTPRequest/remoteAddress``).
    let remoteAddress: String?
    private(set) var buffer: [UInt8] = []
    var readIndex = 0
    var scanIndex = 0
    var state: State = .requestLine

    // The request under construction.
    var method = HTTPMethod.get
    /// Where the target lies in ``buffer``: kept there (``compact()`` keeps it) until the header
    /// section ends, when it is copied with the field lines.
    var targetRange = 0..<0
    var version = HTTPVersion.http1_1
    /// The header field lines read so far; they stay in ``buffer`` from ``fieldsStart`` until the
    /// section ends, when they are copied once into ``receivedFields`` (no string per field).
    var fieldCount = 0
    /// Where each field line read so far lies, from ``fieldsStart``, as ``parseField(_:)`` split
    /// it: ``ReceivedFields`` takes them as they are, without scanning the lines again. Between
    /// heads it holds nothing and no capacity (an idle keep-alive connection keeps none):
    /// ``parse(spans:)`` lends it the event loop's array for the call, and ``parse()`` frees it.
    /// Only a head read in several parts keeps its spans here until it ends.
    var fieldSpans: [ReceivedFields.Span] = []
    /// Where the current request's first field line starts in ``buffer``.
    var fieldsStart = 0
    /// The finished header section, kept until the request (and its content) is complete.
    var receivedFields: ReceivedFields?
    /// What the fields read so far say about framing (checked when the header section ends).
    var framing = FramingFields()
    var headerBytes = 0
    var body: [UInt8] = []
    var continuePending = false
    var trailerCount = 0

    init(limits: HTTPServerConfiguration.Limits, remoteAddress: String? = nil) {
        self.limits = limits
        self.remoteAddress = remoteAddress
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

    mutating func compact() {
        // Inside the header section the target and the field lines read so far are kept (they
        // are copied out when it ends); they are bounded by `limits.requestLineBytes` and
        // `limits.headerBytes`.
        let consumed: Int
        if case .headers = state { consumed = targetRange.lowerBound } else { consumed = readIndex }
        guard consumed > 0 else { return }
        if consumed == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 256 * 1024)
        } else {
            buffer.removeSubrange(0..<consumed)
        }
        scanIndex -= consumed
        readIndex -= consumed
        fieldsStart = max(0, fieldsStart - consumed)
        targetRange = max(0, targetRange.lowerBound - consumed)..<max(0, targetRange.upperBound - consumed)
    }

    /// Parses as far as the buffered bytes allow.
    mutating func parse() throws(HTTPParseError) -> Result {
        defer { if fieldSpans.isEmpty { fieldSpans = [] } }
        return try parseKeepingSpans()
    }

    /// Parses as far as the buffered bytes allow, reading a head's field spans into `spans` (an
    /// event loop's array, lent to one parse at a time: no allocation per request). A head that
    /// is still incomplete when the call returns keeps its spans (and `spans`' capacity) in the
    /// parser until it ends; `spans` gets the larger capacity back.
    mutating func parse(spans: inout [ReceivedFields.Span]) throws(HTTPParseError) -> Result {
        if fieldSpans.isEmpty { swap(&fieldSpans, &spans) }
        defer {
            if fieldSpans.isEmpty {
                if fieldSpans.capacity > spans.capacity { swap(&fieldSpans, &spans) }
                fieldSpans = []
            }
        }
        return try parseKeepingSpans()
    }

    private mutating func parseKeepingSpans() throws(HTTPParseError) -> Result {
        do {
            return try parseStep()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    mutating func parseStep() throws(HTTPParseError) -> Result {
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
                let requestLine = try buffer.withUnsafeBufferPointer { (bytes) throws(HTTPParseError) in
                    try Self.parseRequestLine(UnsafeBufferPointer(rebasing: bytes[line]))
                }
                method = requestLine.method
                version = requestLine.version
                targetRange = (line.lowerBound + requestLine.target.lowerBound)..<(line.lowerBound + requestLine.target.upperBound)
                fieldsStart = readIndex
                state = .headers
            case .headers:
                guard let line = try nextLine(maxBytes: limits.headerBytes - headerBytes, tooLong: .headersTooLarge) else {
                    return .needMoreData
                }
                headerBytes += line.count + 2
                if line.isEmpty {
                    if let result = try headersComplete() { return result }
                } else {
                    guard fieldCount < limits.headerCount else { throw .tooManyHeaders }
                    // Only the framing fields' values are read now, as strings.
                    let lineRange = line
                    let (parts, role, value) = try buffer.withUnsafeBufferPointer {
                        (bytes) throws(HTTPParseError) -> (FieldLine, FramingFields.Role, String) in
                        let line = UnsafeBufferPointer(rebasing: bytes[lineRange])
                        let (parts, role) = try Self.parseField(line)
                        return (parts, role, role.readsValue ? parts.value(of: line) : "")
                    }
                    if role != .other { framing.note(role, value: value) }
                    if fieldSpans.isEmpty { fieldSpans.reserveCapacity(16) }
                    fieldSpans.append(ReceivedFields.Span(lineStart: lineRange.lowerBound - fieldsStart, parts: parts))
                    fieldCount += 1
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
                // RFC 9112 section 7.1.1: extensions are checked against their grammar and ignored;
                // their bytes count against the header section's limit (with the trailer fields),
                // so they stay bounded.
                guard let line = try nextLine(maxBytes: max(64, limits.headerBytes - headerBytes), tooLong: .headersTooLarge) else {
                    return .needMoreData
                }
                let size = try Self.parseChunkSize(buffer[line])
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
                guard fieldCount + trailerCount <= limits.headerCount else { throw .tooManyHeaders }
                _ = try buffer.withUnsafeBufferPointer { (bytes) throws(HTTPParseError) in
                    try Self.parseField(UnsafeBufferPointer(rebasing: bytes[line]))
                }
            }
        }
    }

    /// Where the next CRLF-terminated line is in ``buffer`` (without the CRLF), or nil when
    /// incomplete. A bare LF is an error (RFC 9112 section 2.2 lets a server reject it; DESIGN.md does).
    /// `tooLong` is made only when thrown: passed as a value, each line's read of the static
    /// error cost a `swift_once` call.
    mutating func nextLine(maxBytes: Int, tooLong: @autoclosure () -> HTTPParseError) throws(HTTPParseError) -> Range<Int>? {
        let lineFeed = buffer.withUnsafeBufferPointer { ByteScan.index(of: 0x0A, in: $0, from: scanIndex) }
        guard let lineFeed else {
            scanIndex = buffer.count
            if buffer.count - readIndex > maxBytes + 1 { throw tooLong() }
            return nil
        }
        guard lineFeed > readIndex, buffer[lineFeed - 1] == 0x0D else {
            throw .bad("bare_lf", "A line ends with a bare LF.")
        }
        if lineFeed - 1 - readIndex > maxBytes { throw tooLong() }
        let line = readIndex..<lineFeed - 1
        readIndex = lineFeed + 1
        scanIndex = readIndex
        return line
    }

    /// The complete request, or the request with the error found after framing.
    mutating func finish() -> Result {
        let error = targetError
        targetError = nil
        let request = finishRequest()
        if let error { return .rejected(request, error) }
        return .request(request)
    }

    mutating func finishRequest() -> HTTPRequest {
        // Decoding errors surface through `decodeTarget`, called before this point.
        let parts = decodedTarget ?? RequestTarget(path: "/", query: [])
        let head = receivedFields ?? ReceivedFields(lines: UnsafeBufferPointer(start: nil, count: 0), spans: UnsafeBufferPointer(start: nil, count: 0))
        let request = HTTPRequest(
            method: method, head: head, path: parts.path, query: parts.query, version: version, body: body,
            remoteAddress: remoteAddress
        )
        receivedFields = nil
        fieldCount = 0
        framing = FramingFields()
        headerBytes = 0
        trailerCount = 0
        body = []
        decodedTarget = nil
        state = .requestLine
        return request
    }

    var decodedTarget: RequestTarget?
    var targetError: HTTPParseError?
}
