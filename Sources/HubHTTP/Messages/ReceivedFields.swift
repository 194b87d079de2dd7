#if canImport(Glibc)
import Glibc
#endif
import HubPrimitives

/// A request's target and header fields as the parser received them, read in place: the
/// target's bytes, the field lines' bytes and where each name and value lies, in one array (one
/// allocation for the whole head). A name or value becomes a `String` only when it is read, so
/// the fields nothing reads (a browser's `User-Agent`, `Accept`, `Cookie`, ...) cost no strings
/// at all, and neither does the target until ``HTTPRequest/target`` is read.
///
/// Layout of ``storage``: the field count and the target's length (two `UInt32`s) and the
/// names' ``FieldNameFilter`` bits (a `UInt64`), then per field four `UInt32` offsets into the
/// array (name start, name end, value start, value end), then the target, then the field lines
/// as received (each still ending in CRLF). The parser has already checked the target (visible
/// ASCII) and every line (RFC 9112 sections 3 and 5), so a name is a token and a value has no CR,
/// LF or other control byte; the head is bounded by `limits.requestLineBytes` and
/// `limits.headerBytes` (at most 16 MiB from `server.json`), far inside a `UInt32` offset.
struct ReceivedFields: Sendable {
    private let storage: [UInt8]

    private init(storage: [UInt8]) { self.storage = storage }

    /// How many fields were received.
    var count: Int {
        storage.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt32.self))) }
    }

    /// The count, the target's length and the names' filter bits.
    private static let countBytes = 16
    private static let spanBytes = 16

    /// Where a field line the parser has checked lies in the header section: its start (from
    /// the section's first byte) and its parts as ``RequestParser/parseField(_:)`` split it.
    /// Four `UInt32`s (16 bytes): the header section is bounded far inside a `UInt32` offset.
    struct Span {
        let lineStart: UInt32
        let nameEnd: UInt32
        let valueStart: UInt32
        let valueEnd: UInt32

        init(lineStart: Int, parts: FieldLine) {
            self.lineStart = UInt32(lineStart)
            nameEnd = UInt32(parts.nameEnd)
            valueStart = UInt32(parts.valueStart)
            valueEnd = UInt32(parts.valueEnd)
        }
    }

    /// The target `target` and the fields of `lines` at `spans`, as the parser split them while
    /// it read the lines: the table is written from the spans (the lines are not scanned again)
    /// and the target and lines copied once.
    init(target: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0), lines: UnsafeBufferPointer<UInt8>, spans: UnsafeBufferPointer<Span>) {
        let tableBytes = Self.countBytes + spans.count * Self.spanBytes
        let linesStart = tableBytes + target.count
        // Zeroed, then written over: cheaper than an uninitialized array (``Swift/Array/zeroed(count:)``).
        var bytes = [UInt8].zeroed(count: linesStart + lines.count)
        var names: UInt64 = 0
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(spans.count).littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(target.count).littleEndian, toByteOffset: 4, as: UInt32.self)
            if let base = target.baseAddress, !target.isEmpty {
                raw.baseAddress!.advanced(by: tableBytes).copyMemory(from: base, byteCount: target.count)
            }
            if let base = lines.baseAddress, !lines.isEmpty {
                raw.baseAddress!.advanced(by: linesStart).copyMemory(from: base, byteCount: lines.count)
            }
            for (field, span) in spans.enumerated() {
                let start = linesStart + Int(span.lineStart)
                let entry = Self.countBytes + field * Self.spanBytes
                raw.storeBytes(of: UInt32(start).littleEndian, toByteOffset: entry, as: UInt32.self)
                raw.storeBytes(of: UInt32(start + Int(span.nameEnd)).littleEndian, toByteOffset: entry + 4, as: UInt32.self)
                raw.storeBytes(of: UInt32(start + Int(span.valueStart)).littleEndian, toByteOffset: entry + 8, as: UInt32.self)
                raw.storeBytes(of: UInt32(start + Int(span.valueEnd)).littleEndian, toByteOffset: entry + 12, as: UInt32.self)
                names |= FieldNameFilter.bit(of: UnsafeBufferPointer(rebasing: lines[Int(span.lineStart)..<Int(span.lineStart + span.nameEnd)]))
            }
            raw.storeBytes(of: names.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
        storage = bytes
    }

    /// The request target's text, as received (empty for fields made without one).
    var target: String {
        storage.withUnsafeBytes { raw in
            let count = Self.count(in: raw)
            let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            let start = Self.countBytes + count * Self.spanBytes
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<start + length]), as: UTF8.self)
        }
    }

    private static func count(in raw: UnsafeRawBufferPointer) -> Int {
        Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self)))
    }

    /// Where field `index`'s name and value lie in ``storage``.
    private func span(_ index: Int, in raw: UnsafeRawBufferPointer) -> (name: Range<Int>, value: Range<Int>) {
        let entry = Self.countBytes + index * Self.spanBytes
        let nameStart = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: entry, as: UInt32.self)))
        let nameEnd = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: entry + 4, as: UInt32.self)))
        let valueStart = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: entry + 8, as: UInt32.self)))
        let valueEnd = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: entry + 12, as: UInt32.self)))
        return (nameStart..<nameEnd, valueStart..<valueEnd)
    }

    /// The bytes the fields take as `name: value` lines (`: ` and CRLF included).
    var encodedFieldBytes: Int {
        storage.withUnsafeBytes { raw in
            (0..<Self.count(in: raw)).reduce(0) { total, index in
                let (name, value) = span(index, in: raw)
                return total + name.count + value.count + 4
            }
        }
    }

    /// Calls `body` with the value of every field named `name` (ASCII case-insensitive), in
    /// order, until it returns false; only those values are made into strings.
    func forEachValue(named name: String, _ body: (String) throws -> Bool) rethrows {
        try forEachValueBytes(named: name) { value in try body(String(decoding: value, as: UTF8.self)) }
    }

    /// The one scan behind every lookup: calls `body` with the value bytes of each field named
    /// `name`, in order, until it returns false. A name the ``FieldNameFilter`` rules out is not
    /// looked for; names are compared by length first; `name` is read in place (a copy of it cost
    /// a reference count per lookup).
    func forEachValueBytes(named name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows {
        try ASCII.withUTF8(of: name) { wanted in
            try storage.withUnsafeBytes { raw in
                let summary = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                guard FieldNameFilter.mayHold(wanted, summary: summary) else { return }
                let bytes = raw.assumingMemoryBound(to: UInt8.self)
                for index in 0..<Self.count(in: raw) {
                    let (nameRange, valueRange) = span(index, in: raw)
                    guard nameRange.count == wanted.count,
                        ASCII.caseInsensitiveEquals(UnsafeBufferPointer(rebasing: bytes[nameRange]), wanted)
                    else { continue }
                    if try !body(UnsafeBufferPointer(rebasing: bytes[valueRange])) { return }
                }
            }
        }
    }

    /// Calls `body` with each field's name in order and a function that makes its value: only
    /// the values asked for become strings.
    func forEachField(_ body: (_ name: String, _ value: () -> String) throws -> Void) rethrows {
        try storage.withUnsafeBytes { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            for index in 0..<Self.count(in: raw) {
                let (name, value) = span(index, in: raw)
                try body(String(decoding: UnsafeBufferPointer(rebasing: bytes[name]), as: UTF8.self)) {
                    String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
                }
            }
        }
    }

    /// Calls `body` with each field's name and value bytes in order, read in place.
    func forEachFieldBytes(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        try storage.withUnsafeBytes { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            for index in 0..<Self.count(in: raw) {
                let (name, value) = span(index, in: raw)
                try body(UnsafeBufferPointer(rebasing: bytes[name]), UnsafeBufferPointer(rebasing: bytes[value]))
            }
        }
    }

    /// Calls `body` with each field line as received (from its name to its CRLF), in order, but
    /// those whose name `skipped` is true for, until `body` returns false; returns whether it
    /// went through every line. The lines lie end to end from the first to the end of
    /// ``storage`` (the parser copies them as one block).
    func forEachLine(
        skipping skipped: (UnsafeBufferPointer<UInt8>) -> Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        storage.withUnsafeBytes { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            let count = Self.count(in: raw)
            for index in 0..<count {
                let entry = Self.countBytes + index * Self.spanBytes
                let start = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: entry, as: UInt32.self)))
                let nameEnd = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: entry + 4, as: UInt32.self)))
                guard !skipped(UnsafeBufferPointer(rebasing: bytes[start..<nameEnd])) else { continue }
                let end = index + 1 < count
                    ? Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: entry + Self.spanBytes, as: UInt32.self)))
                    : bytes.count
                guard body(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return false }
            }
            return true
        }
    }

    /// Every field as strings, in the order received.
    var fields: [HTTPHeaders.Field] {
        storage.withUnsafeBytes { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            return (0..<Self.count(in: raw)).map { index in
                let (name, value) = span(index, in: raw)
                return (
                    name: String(decoding: UnsafeBufferPointer(rebasing: bytes[name]), as: UTF8.self),
                    value: String(decoding: UnsafeBufferPointer(rebasing: bytes[value]), as: UTF8.self)
                )
            }
        }
    }
}

// MARK: - A read that changes only values

extension ReceivedFields {
    /// These fields as a parse of `read` would make them, when `read` is `kept` (the read they
    /// were parsed from: one whole request with no body, ending with these lines and the empty
    /// line) but for the values of fields that frame nothing, each changed value still a field
    /// value (RFC 9110 section 5.5) with no whitespace at either end. Nil when any other byte
    /// differs (the request line, a name, the spacing, a `Host`, `Content-Length`,
    /// `Transfer-Encoding` or `Expect` value), when a request has `Content-Length` or
    /// `Transfer-Encoding` at all, and when nothing differs.
    ///
    /// Sound because the parser reads such a value only to check it: it splits each line at
    /// its first colon and trims the whitespace around the value, so a value of the same length
    /// whose ends are not whitespace, with no CR, LF or other control byte, leaves every line,
    /// name and span where it was, and the request differs from the kept one in those values
    /// alone. A client that sends a new `traceparent` with each request (or a balancer passing
    /// many users' requests of one shape) is answered with one copy of the head, not a parse.
    func changingValues(from kept: UnsafeRawBufferPointer, to read: UnsafeRawBufferPointer) -> ReceivedFields? {
        guard read.count == kept.count, let keptBase = kept.baseAddress, let readBase = read.baseAddress else { return nil }
        /// Whether `read` and `kept` hold the same bytes in `range`.
        func same(_ range: Range<Int>) -> Bool {
            range.isEmpty || memcmp(keptBase + range.lowerBound, readBase + range.lowerBound, range.count) == 0
        }
        // Pass 1: where each value lies in the reads, what differs, and whether it may.
        let plan: (linesStart: Int, readLinesStart: Int)? = storage.withUnsafeBytes { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            let count = Self.count(in: raw)
            let targetLength = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            let linesStart = Self.countBytes + count * Self.spanBytes + targetLength
            let linesLength = raw.count - linesStart
            // The lines end the read, before the empty line: checked, not assumed.
            let readLinesStart = kept.count - 2 - linesLength
            guard count > 0, readLinesStart >= 0, kept[kept.count - 2] == 0x0D, kept[kept.count - 1] == 0x0A,
                memcmp(keptBase + readLinesStart, raw.baseAddress! + linesStart, linesLength) == 0
            else { return nil }
            var equalUpTo = 0
            var changed = false
            for index in 0..<count {
                let (name, value) = span(index, in: raw)
                switch FramingFields.Role(name: UnsafeBufferPointer(rebasing: bytes[name])) {
                case .other: break
                case .contentLength, .transferEncoding: return nil
                case .host, .expect, .invalidHost: continue
                }
                guard !value.isEmpty else { continue }
                let start = value.lowerBound - linesStart + readLinesStart
                let end = start + value.count
                guard same(equalUpTo..<start) else { return nil }
                if !same(start..<end) {
                    let new = UnsafeRawBufferPointer(rebasing: read[start..<end])
                    guard ByteScan.isFieldValue(new), !Self.isWhitespace(new[0]), !Self.isWhitespace(new[new.count - 1])
                    else { return nil }
                    changed = true
                }
                equalUpTo = end
            }
            guard changed, same(equalUpTo..<read.count) else { return nil }
            return (linesStart, readLinesStart)
        }
        guard let plan else { return nil }
        // Pass 2: a copy of the head with every value as `read` has it (those pass 1 found
        // equal are copied over themselves).
        var patched = storage
        patched.withUnsafeMutableBytes { out in
            let raw = UnsafeRawBufferPointer(out)
            for index in 0..<Self.count(in: raw) {
                let value = span(index, in: raw).value
                let start = value.lowerBound - plan.linesStart + plan.readLinesStart
                out.baseAddress!.advanced(by: value.lowerBound).copyMemory(from: readBase + start, byteCount: value.count)
            }
        }
        return ReceivedFields(storage: patched)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}

/// Where a checked field line's name ends and its value (without the surrounding OWS) lies:
/// `field-name ":" OWS field-value OWS` (RFC 9112 section 5).
struct FieldLine {
    /// The colon's offset: the name is `0..<nameEnd`.
    let nameEnd: Int
    let valueStart: Int
    let valueEnd: Int

    /// The parts of `line`, which has a colon (the parser checks it before splitting).
    init(splitting line: UnsafeBufferPointer<UInt8>) {
        let colon = ByteScan.index(of: UInt8(ascii: ":"), in: line, from: 0) ?? line.count
        var valueStart = Swift.min(colon + 1, line.count)
        var valueEnd = line.count
        while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        nameEnd = colon
        self.valueStart = valueStart
        self.valueEnd = valueEnd
    }

    /// The value's text, from `line` (the line these parts were split from).
    func value(of line: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd]), as: UTF8.self)
    }
}
