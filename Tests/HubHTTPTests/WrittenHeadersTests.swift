import HubTestSupport
import Testing
@testable import HubHTTP

/// Header fields written as bytes (``HTTPHeaders/init(writingCapacity:)``, what a view response
/// uses) answer every question a list of the same fields answers, turn into a list when a field
/// is replaced or removed, and go out over a socket as the same head, sanitized and framed alike.
@Suite struct WrittenHeadersTests {
    /// The same fields added to written headers (`capacity` bytes of room) and to a list.
    private static func both(capacity: Int) -> (written: HTTPHeaders, listed: HTTPHeaders) {
        var written = HTTPHeaders(writingCapacity: capacity)
        var listed = HTTPHeaders()
        let fields: [(String, String)] = [
            ("Content-Type", "application/json"), ("Set-Cookie", "a=1"), ("X-Empty", ""),
            ("set-cookie", "b=2"), ("X-Long", String(repeating: "v", count: 3000)), ("X-Text", "grüße, 世界"),
            ("ETag", "\"abc\""),
        ]
        for (name, value) in fields {
            written.add(name: name, value: value)
            listed.add(name: name, value: value)
        }
        return (written, listed)
    }

    private static func pairs(_ headers: HTTPHeaders) -> [String] { headers.fields.map { "\($0.name): \($0.value)" } }

    @Test("written fields answer every lookup as a list of the same fields does, with or without room", arguments: [0, 64, 8192])
    func lookupsMatchAList(capacity: Int) {
        let (written, listed) = Self.both(capacity: capacity)
        #expect(written.count == 7)
        #expect(Self.pairs(written) == Self.pairs(listed))
        for name in ["content-type", "SET-COOKIE", "X-Empty", "x-text", "etag", "Missing", "Set-Cooki"] {
            #expect(written[name] == listed[name], "\(name)")
            #expect(written.values(for: name) == listed.values(for: name), "\(name)")
            #expect(written.contains(name) == listed.contains(name), "\(name)")
            var writtenBytes: [[UInt8]] = []
            written.forEachValueBytes(named: name) { writtenBytes.append(Array($0)); return true }
            var listedBytes: [[UInt8]] = []
            listed.forEachValueBytes(named: name) { listedBytes.append(Array($0)); return true }
            #expect(writtenBytes == listedBytes, "\(name)")
        }
        #expect(written.values(for: "set-cookie") == ["a=1", "b=2"])
        var firstOnly: [String] = []
        written.forEachValue(named: "Set-Cookie") { firstOnly.append($0); return false }
        #expect(firstOnly == ["a=1"])
        #expect(written.encodedFieldBytes == listed.encodedFieldBytes)
        var lazily: [String] = []
        written.forEachField(lazily: { name, value in lazily.append(name == "X-Text" ? value() : name) })
        #expect(lazily == ["Content-Type", "Set-Cookie", "X-Empty", "set-cookie", "X-Long", "grüße, 世界", "ETag"])
    }

    @Test("replacing or removing a written field gives what the list gives, and adding goes on after it")
    func changesMatchAList() {
        var (written, listed) = Self.both(capacity: 16)
        written.replaceOrAdd(name: "SET-COOKIE", value: "c=3")
        listed.replaceOrAdd(name: "SET-COOKIE", value: "c=3")
        #expect(Self.pairs(written) == Self.pairs(listed))
        written["ETag"] = nil
        listed["ETag"] = nil
        written.add(name: "Vary", value: "Accept-Encoding")
        listed.add(name: "Vary", value: "Accept-Encoding")
        #expect(Self.pairs(written) == Self.pairs(listed))
        #expect(written["etag"] == nil && written["vary"] == "Accept-Encoding")
        // A copy taken before an add keeps its own fields (value semantics).
        var original = HTTPHeaders(writingCapacity: 256)
        original.add(name: "A", value: "1")
        let copy = original
        original.add(name: "B", value: "2")
        #expect(Self.pairs(copy) == ["A: 1"])
        #expect(Self.pairs(original) == ["A: 1", "B: 2"])
    }

    @Test("a response with written fields goes out as the same head as with a list: sanitized, the server's framing, ETag and Vary added")
    func sameHeadOverASocket() async throws {
        @Sendable func headers(written: Bool) -> HTTPHeaders {
            var headers = written ? HTTPHeaders(writingCapacity: 32) : HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "X-Injected", value: "a\r\nSet-Cookie: stolen=1")
            headers.add(name: "Content-Length", value: "999")
            headers.add(name: "Connection", value: "close")
            headers.add(name: "X-Many", value: "1")
            headers.add(name: "x-many", value: "2")
            return headers
        }
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 2000)
        var router = Router()
        router.add(.get, "/written", answer: { _, _ in
            .now(HTTPResponse(headers: headers(written: true), body: .representation(Representation(bytes: body))))
        })
        router.add(.get, "/listed", answer: { _, _ in
            .now(HTTPResponse(headers: headers(written: false), body: .representation(Representation(bytes: body))))
        })
        try await withServer(responder: router.wrapped(in: [RepresentationMiddleware()])) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (written, listed) = try await blocking {
                try client.send("GET /written HTTP/1.1\r\nHost: x\r\n\r\nGET /listed HTTP/1.1\r\nHost: x\r\n\r\n")
                return (try client.readResponse(), try client.readResponse())
            }
            func comparable(_ response: LoopbackResponse) -> [String] {
                response.headers.fields.filter { !["date", "x-request-id"].contains($0.name.lowercased()) }
                    .map { "\($0.name): \($0.value)" }
            }
            #expect(written.status == 200 && listed.status == 200)
            #expect(comparable(written) == comparable(listed))
            #expect(written.header("X-Injected") == "a  Set-Cookie: stolen=1")
            #expect(written.header("Set-Cookie") == nil)
            #expect(written.headerValues("Content-Length") == ["2000"])
            #expect(written.headerValues("Connection").isEmpty)
            #expect(written.headerValues("X-Many") == ["1", "2"])
            #expect(written.header("ETag") != nil && written.header("Vary") == "Accept-Encoding")
            #expect(written.body == body)
        }
    }
}
