@testable import HubHTTP
import HubTestSupport
import Testing

/// ``RepeatedRequest`` for a read that changes only field values (a new `traceparent` on every
/// request): what it answers is exactly what the parser makes of the same bytes, checked here
/// against the parser over every byte of a head, every kind of byte and random changes; and it
/// answers without a parse whenever only values that frame nothing changed validly.
@Suite struct RepeatedRequestValueTests {
    static let traceID = "0af7651916cd43dd8448eb211c80319c"
    static let head = head(trace: traceID)

    /// An app's poll: a field with an empty value, one with whitespace around its value, the
    /// trace context, `Connection` (which decides keep-alive from the value) and `Host`.
    static func head(trace: String, host: String = "hub.example") -> String {
        "GET /view?session=abc&x=%41 HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: HubApp/4.2.0 (iPhone15,3)\r\n"
            + "Accept:  application/json \t\r\nX-Empty:\r\ntraceparent: 00-\(trace)-b7ad6b7169203331-01\r\n"
            + "tracestate: hub=1\r\nConnection: keep-alive\r\n\r\n"
    }

    /// What a fresh parser makes of `bytes`: nil when it rejects them or needs more.
    static func parse(_ bytes: [UInt8]) throws -> HTTPRequest? {
        var parser = RequestParser(limits: testConfiguration().limits)
        parser.append(bytes)
        var spans: [ReceivedFields.Span] = []
        guard case .request(let request)? = try? parser.parse(spans: &spans), parser.bufferedByteCount == 0 else { return nil }
        return request
    }

    /// Whether two requests agree in everything a handler can read.
    static func same(_ a: HTTPRequest, _ b: HTTPRequest?) -> Bool {
        guard let b else { return false }
        return a.method == b.method && a.target == b.target && a.path == b.path
            && a.query.map { [$0.name, $0.value] } == b.query.map { [$0.name, $0.value] }
            && a.version == b.version && a.headers.fields.map { [$0.name, $0.value] } == b.headers.fields.map { [$0.name, $0.value] }
            && a.body == b.body && a.remoteAddress == b.remoteAddress && a.keepAlive == b.keepAlive
    }

    static func kept(_ text: String) throws -> RepeatedRequest {
        var kept = RepeatedRequest()
        let request = try #require(try parse(Array(text.utf8)))
        Array(text.utf8).withUnsafeBytes { kept.keep(request, parsedFrom: $0) }
        return kept
    }

    static func answer(_ kept: RepeatedRequest, _ bytes: [UInt8]) -> HTTPRequest? {
        bytes.withUnsafeBytes { kept.request(repeatedBy: $0) }
    }

    /// Where the values of fields that frame nothing lie in `text` (not Host's).
    static func changeableValues(in text: String) -> [Range<Int>] {
        let bytes = Array(text.utf8)
        var ranges: [Range<Int>] = []
        var lineStart = bytes.firstIndex(of: 0x0A)! + 1
        while bytes[lineStart] != 0x0D {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0D)!
            let colon = bytes[lineStart...].firstIndex(of: UInt8(ascii: ":"))!
            let name = String(decoding: bytes[lineStart..<colon], as: UTF8.self).lowercased()
            var start = colon + 1
            var end = lineEnd
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            if !["host", "content-length", "transfer-encoding", "expect"].contains(name) { ranges.append(start..<end) }
            lineStart = lineEnd + 2
        }
        return ranges
    }

    @Test("a new traceparent of the same length: the kept request with that value, as the parser makes it; the kept one unchanged")
    func newTraceContext() throws {
        let kept = try Self.kept(Self.head)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let trace = String((0..<32).map { _ in "0123456789abcdef".randomElement(using: &generator)! })
            let bytes = Array(Self.head(trace: trace).utf8)
            let answer = try #require(Self.answer(kept, bytes), "trace \(trace)")
            #expect(Self.same(answer, try Self.parse(bytes)))
            #expect(answer.headers["traceparent"] == "00-\(trace)-b7ad6b7169203331-01")
        }
        let original = try #require(Self.answer(kept, Array(Self.head.utf8)))
        #expect(original.headers["traceparent"] == "00-\(Self.traceID)-b7ad6b7169203331-01", "the kept request is not changed by a copy")
        #expect(Self.answer(kept, Array(Self.head(trace: Self.traceID + "0").utf8)) == nil, "another length: parsed")
    }

    @Test("every byte of the head replaced by every kind of byte: the parser's request or nil, and nil outside the values that frame nothing")
    func everyByteEveryKind() throws {
        let kept = try Self.kept(Self.head)
        let bytes = Array(Self.head.utf8)
        let values = Self.changeableValues(in: Self.head)
        #expect(values.count == 6)
        var answered = 0
        for index in bytes.indices {
            for replacement: UInt8 in [0x00, 0x09, 0x0A, 0x0D, 0x20, 0x3A, 0x41, 0x61, 0x7F, 0x80, 0xFF] where bytes[index] != replacement {
                var changed = bytes
                changed[index] = replacement
                guard let answer = Self.answer(kept, changed) else { continue }
                answered += 1
                #expect(values.contains { $0.contains(index) }, "byte \(index) lies in a value that frames nothing")
                #expect(Self.same(answer, try Self.parse(changed)), "byte \(index) as \(replacement)")
            }
        }
        #expect(answered > 100, "valid changes inside values are answered without a parse")
    }

    @Test("random changes of one to four bytes: whatever is answered is what the parser makes; visible changes inside values are always answered")
    func randomChanges() throws {
        let kept = try Self.kept(Self.head)
        let bytes = Array(Self.head.utf8)
        let values = Self.changeableValues(in: Self.head)
        let inside = values.flatMap { Array($0) }
        var generator = SeededGenerator(seed: 42)
        var answered = 0
        for round in 0..<3000 {
            var changed = bytes
            var positions: [Int] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                // Mostly inside values (where answers are possible), sometimes anywhere.
                let index = Bool.random(using: &generator) || round % 3 == 0 ? inside.randomElement(using: &generator)! : Int.random(in: 0..<bytes.count, using: &generator)
                changed[index] = round % 2 == 0 ? UInt8.random(in: 0x21...0x7E, using: &generator) : UInt8.random(in: 0...255, using: &generator)
                positions.append(index)
            }
            let parsed = try Self.parse(changed)
            if let answer = Self.answer(kept, changed) {
                answered += 1
                #expect(Self.same(answer, parsed), "round \(round): \(positions)")
            } else if changed != bytes, positions.allSatisfy({ index in values.contains { $0.contains(index) } }),
                positions.allSatisfy({ (0x21...0x7E).contains(changed[$0]) })
            {
                Issue.record("round \(round): visible bytes inside values at \(positions) were parsed, not answered")
            }
        }
        #expect(answered > 1000)
    }

    @Test("Host never changes; a request with Content-Length or Transfer-Encoding is only repeated exactly")
    func framingFields() throws {
        let kept = try Self.kept(Self.head)
        #expect(Self.answer(kept, Array(Self.head(trace: Self.traceID, host: "hub.examplf").utf8)) == nil, "Host")
        for framed in ["GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nX-A: 1\r\n\r\n",
                       "GET /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n0\r\n\r\n"] {
            let framedKept = try Self.kept(framed)
            #expect(Self.answer(framedKept, Array(framed.utf8)) != nil, "an exact repeat")
            #expect(Self.answer(framedKept, Array(framed.replacing("X-A: 1", with: "X-A: 2").utf8)) == nil)
        }
    }

    @Test("a value that would begin or end with whitespace, or hold CR, LF or another control byte, is parsed")
    func valueEnds() throws {
        let kept = try Self.kept(Self.head)
        for (from, to) in [("HubApp/4.2.0", " ubApp/4.2.0"), ("(iPhone15,3)", "(iPhone15,3\t"), ("hub=1", "hub\r1"),
                           ("hub=1", "hub\n1"), ("hub=1", "hub\u{7F}1")] {
            let changed = Array(Self.head.replacing(from, with: to).utf8)
            #expect(Self.answer(kept, changed) == nil, "\(to.debugDescription)")
        }
        // Whitespace inside a value is a value's byte: answered, as the parser reads it.
        let spaced = Array(Self.head.replacing("HubApp/4.2.0", with: "HubApp 4.2\t0").utf8)
        let answer = try #require(Self.answer(kept, spaced))
        #expect(answer.headers["User-Agent"] == "HubApp 4.2\t0 (iPhone15,3)")
        #expect(Self.same(answer, try Self.parse(spaced)))
        // Connection decides keep-alive from the value a copy carries.
        let closing = Array(Self.head.replacing("keep-alive", with: "close,abcd").utf8)
        let closed = try #require(Self.answer(kept, closing))
        #expect(closed.keepAlive == false)
        #expect(Self.same(closed, try Self.parse(closing)))
    }
}

/// A deterministic generator (SplitMix64), so that a failing round can be run again.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
