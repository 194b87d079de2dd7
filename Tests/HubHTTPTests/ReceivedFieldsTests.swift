import HubTestSupport
import Testing
@testable import HubHTTP
#if canImport(Glibc)
import Glibc
#endif

/// A parsed request's header fields are read in place from the bytes received
/// (`ReceivedFields`): every lookup answers what the list of strings answered, whether the head
/// came at once or a byte at a time, and the first change turns them into that list.
@Suite struct ReceivedFieldsTests {
    /// A browser's head: twelve fields, duplicates in different cases, OWS around values, an
    /// empty value, obs-text, and a tab inside a value.
    static let head =
        "GET /view?uri=hub%3Ahome HTTP/1.1\r\nHost: example.test:8080\r\n"
        + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36\r\n"
        + "Accept: text/html,application/json;q=0.9,*/*;q=0.8\r\nAccept-Encoding:gzip, deflate, br  \r\n"
        + "X-Dup: 1\r\nx-dup:   2\t\r\nX-DUP: three\r\nX-Empty:\r\nX-Empty-Ows: \t \r\n"
        + "X-Obs: caf\u{E9}\r\nX-Tab: a\tb\r\nConnection: keep-alive, Upgrade\r\n\r\n"

    /// The same fields as a list of strings, as the parser made them before it read in place.
    static let expected: [HTTPHeaders.Field] = [
        ("Host", "example.test:8080"),
        ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"),
        ("Accept", "text/html,application/json;q=0.9,*/*;q=0.8"), ("Accept-Encoding", "gzip, deflate, br"),
        ("X-Dup", "1"), ("x-dup", "2"), ("X-DUP", "three"), ("X-Empty", ""), ("X-Empty-Ows", ""),
        ("X-Obs", "caf\u{E9}"), ("X-Tab", "a\tb"), ("Connection", "keep-alive, Upgrade"),
    ]

    static let limits = HTTPServerConfiguration.Limits(headerBytes: 4096, headerCount: 20)

    /// Every lookup of `headers` answers what the list `expected` answers.
    static func expectSameAnswers(_ headers: HTTPHeaders, _ sourceLocation: SourceLocation = #_sourceLocation) {
        let list = HTTPHeaders(expected)
        #expect(headers.count == expected.count, sourceLocation: sourceLocation)
        #expect(headers.fields.map { "\($0.name)=\($0.value)" } == list.fields.map { "\($0.name)=\($0.value)" }, sourceLocation: sourceLocation)
        let names = ["host", "HOST", "User-Agent", "accept", "Accept-Encoding", "x-dup", "X-Empty", "x-empty-ows", "X-OBS", "x-tab",
                     "connection", "Hosx", "Hos", "Hostx", "X-Du", "X-Dupe", "Cookie", "", "x-dup\u{E9}"]
        for name in names {
            #expect(headers[name] == list[name], "\(name)", sourceLocation: sourceLocation)
            #expect(headers.values(for: name) == list.values(for: name), "\(name)", sourceLocation: sourceLocation)
            #expect(headers.contains(name) == list.contains(name), "\(name)", sourceLocation: sourceLocation)
            for form in [headers, list] {
                var values: [String] = []
                form.forEachValueBytes(named: name) { bytes in
                    values.append(String(decoding: bytes, as: UTF8.self))
                    return true
                }
                #expect(values == list.values(for: name), "\(name): every value's bytes", sourceLocation: sourceLocation)
            }
            for form in [headers, list] {
                var first: String?
                var calls = 0
                form.withFirstValueBytes(named: name) { bytes in
                    calls += 1
                    first = bytes.map { String(decoding: $0, as: UTF8.self) }
                }
                #expect(calls == 1, "\(name): the body is called once, found or not", sourceLocation: sourceLocation)
                #expect(first == list[name], "\(name): the first value's bytes", sourceLocation: sourceLocation)
            }
        }
        #expect(headers.containsToken("upgrade", in: "Connection") && !headers.containsToken("close", in: "Connection"), sourceLocation: sourceLocation)
        #expect(!headers.containsToken("upgrade", in: "Host"), sourceLocation: sourceLocation)
        var visited: [String] = []
        headers.forEachField { name, value in visited.append("\(name)=\(value)") }
        #expect(visited == list.fields.map { "\($0.name)=\($0.value)" }, sourceLocation: sourceLocation)
        // Byte for byte in place, from either form: the same names and values (obs-text included).
        for form in [headers, list] {
            var bytes: [String] = []
            form.forEachFieldBytes { name, value in
                bytes.append(String(decoding: name, as: UTF8.self) + "=" + String(decoding: value, as: UTF8.self))
            }
            #expect(bytes == visited, sourceLocation: sourceLocation)
        }
        #expect(Array(headers).map(\.name) == expected.map(\.name), sourceLocation: sourceLocation)
        #expect(headers.description == list.description, sourceLocation: sourceLocation)
        // The response encoder sizes a head by this count: both forms agree with the lines as written.
        let written = expected.reduce(0) { $0 + "\($1.name): \($1.value)\r\n".utf8.count }
        #expect(headers.encodedFieldBytes == written && list.encodedFieldBytes == written, sourceLocation: sourceLocation)
    }

    @Test("a parsed head's fields answer every lookup as the list of strings does, however the bytes arrive")
    func lookupsMatchTheList() throws {
        for chunk in [Int.max, 1, 2, 7, 64] {
            let result = parseAll(Self.head, limits: Self.limits, chunk: chunk)
            #expect(result.error == nil, "chunk \(chunk)")
            let request = try #require(result.requests.first, "chunk \(chunk)")
            Self.expectSameAnswers(request.headers)
            #expect(request.keepAlive)
        }
    }

    @Test("the field spans live in the event loop's array: a connection keeps none between requests, only while a head comes in parts")
    func fieldSpansAreLentByTheLoop() throws {
        var parser = RequestParser(limits: Self.limits)
        var loopSpans: [ReceivedFields.Span] = []
        parser.append(Array(Self.head.utf8))
        guard case .request(let first) = try parser.parse(spans: &loopSpans) else { Issue.record("no request"); return }
        Self.expectSameAnswers(first.headers)
        #expect(parser.fieldSpans.capacity == 0, "an idle keep-alive connection keeps no spans")
        #expect(loopSpans.isEmpty && loopSpans.capacity >= Self.expected.count, "the loop keeps the capacity for the next head")
        let lent = loopSpans.capacity
        // Two heads at once: both read with the loop's array.
        parser.append(Array((Self.head + Self.head).utf8))
        guard case .request(let second) = try parser.parse(spans: &loopSpans),
              case .request(let third) = try parser.parse(spans: &loopSpans)
        else { Issue.record("no pipelined requests"); return }
        Self.expectSameAnswers(second.headers)
        Self.expectSameAnswers(third.headers)
        #expect(parser.fieldSpans.capacity == 0 && loopSpans.capacity == lent)
        // A head in two parts keeps its spans in the parser until it ends, while another
        // connection's parser reads a whole head with the loop's array meanwhile.
        let bytes = Array(Self.head.utf8)
        let cut = Self.head.utf8.count / 2
        parser.append(Array(bytes[..<cut]))
        guard case .needMoreData = try parser.parse(spans: &loopSpans) else { Issue.record("a half head answered"); return }
        #expect(!parser.fieldSpans.isEmpty, "the half-read head's spans stay with it")
        var other = RequestParser(limits: Self.limits)
        other.append(bytes)
        guard case .request(let meanwhile) = try other.parse(spans: &loopSpans) else { Issue.record("no request meanwhile"); return }
        Self.expectSameAnswers(meanwhile.headers)
        parser.append(Array(bytes[cut...]))
        guard case .request(let fourth) = try parser.parse(spans: &loopSpans) else { Issue.record("no fourth request"); return }
        Self.expectSameAnswers(fourth.headers)
        #expect(parser.fieldSpans.capacity == 0 && other.fieldSpans.capacity == 0)
        #expect(loopSpans.isEmpty && loopSpans.capacity >= Self.expected.count)
        // A head whose content is still coming holds no spans while it waits.
        let post = Array("POST /action HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nContent-Length: 10\r\n\r\n12345".utf8)
        parser.append(post)
        guard case .needMoreData = try parser.parse(spans: &loopSpans) else { Issue.record("a half body answered"); return }
        #expect(parser.fieldSpans.capacity == 0 && loopSpans.capacity >= Self.expected.count, "the loop keeps its array")
        parser.append(Array("67890".utf8))
        guard case .request(let posted) = try parser.parse(spans: &loopSpans) else { Issue.record("no POST"); return }
        #expect(posted.body == Array("1234567890".utf8) && posted.headers["x-a"] == "1" && posted.target == "/action")
        // Without the loop's array (a parser on its own) nothing is kept either.
        var alone = RequestParser(limits: Self.limits)
        alone.append(bytes)
        guard case .request(let fifth) = try alone.parse() else { Issue.record("no request alone"); return }
        Self.expectSameAnswers(fifth.headers)
        #expect(alone.fieldSpans.capacity == 0)
    }

    @Test("the target comes back as sent from the head's one copy, however the bytes arrive and whatever follows it")
    func targetIsKeptWithTheFields() throws {
        let long = "/view?session=" + String(repeating: "t", count: 300) + "&uri=hub%3Ahome&x=a+b"
        let text = "\r\nGET \(long) HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n\r\n"
            + "POST /action?uri=hub:home HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"
            + "GET /bad%zz?x=1 HTTP/1.1\r\nHost: h\r\n\r\n"
            + "OPTIONS * HTTP/1.0\r\n\r\n"
        let bytes = Array(text.utf8)
        for chunk in [Int.max, 1, 2, 3, 7, 64, 333] {
            var parser = RequestParser(limits: .init())
            var loopSpans: [ReceivedFields.Span] = []
            var seen: [(target: String, path: String, fields: [String], rejected: Bool)] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + chunk)
                parser.append(Array(bytes[offset..<end]))
                offset = end
                reading: while true {
                    switch try parser.parse(spans: &loopSpans) {
                    case .needMoreData: break reading
                    case .expectContinue: Issue.record("no Expect was sent")
                    case .request(let request):
                        seen.append((request.target, request.path, request.headers.fields.map { "\($0.name)=\($0.value)" }, false))
                    case .rejected(let request, _):
                        seen.append((request.target, request.path, request.headers.fields.map { "\($0.name)=\($0.value)" }, true))
                    }
                }
            }
            #expect(seen.map(\.target) == [long, "/action?uri=hub:home", "/bad%zz?x=1", "*"], "chunk \(chunk)")
            #expect(seen.map(\.path) == ["/view", "/action", "/", "*"], "chunk \(chunk)")
            #expect(seen.map(\.fields) == [["Host=h", "X-A=1"], ["Host=h", "Content-Length=2"], ["Host=h"], []], "chunk \(chunk)")
            #expect(seen.map(\.rejected) == [false, false, true, false], "chunk \(chunk)")
        }
        let request = try #require(parseAll(text).requests.first)
        #expect(request.queryValues("uri") == ["hub:home"] && request.queryValues("x") == ["a+b"])
        #expect(request.queryValues("session") == [String(repeating: "t", count: 300)])
    }

    @Test("forEachValue stops when asked and reads only the named field's values")
    func forEachValueStops() throws {
        let request = try #require(parseAll(Self.head, limits: Self.limits).requests.first)
        var seen: [String] = []
        request.headers.forEachValue(named: "X-DUP") { value in
            seen.append(value)
            return seen.count < 2
        }
        #expect(seen == ["1", "2"])
        seen = []
        request.headers.forEachValue(named: "X-Missing") { value in
            seen.append(value)
            return true
        }
        #expect(seen.isEmpty)
    }

    @Test("changing received fields keeps the others, in order, and leaves a copy as received")
    func changesTurnThemIntoTheList() throws {
        let request = try #require(parseAll(Self.head, limits: Self.limits).requests.first)
        let changes: [(String, (inout HTTPHeaders) -> Void, [HTTPHeaders.Field])] = [
            ("add", { $0.add(name: "X-New", value: "n") }, Self.expected + [("X-New", "n")]),
            ("replace", { $0.replaceOrAdd(name: "x-dup", value: "one") },
             Self.expected.filter { $0.name.lowercased() != "x-dup" }.enumerated().flatMap { index, field in
                 index == 4 ? [("X-Dup", "one"), field] : [field]
             }),
            ("remove", { $0.remove(name: "X-DUP") }, Self.expected.filter { $0.name.lowercased() != "x-dup" }),
            ("subscript", { $0["accept"] = nil }, Self.expected.filter { $0.name != "Accept" }),
        ]
        for (label, change, after) in changes {
            var headers = request.headers
            change(&headers)
            #expect(headers.fields.map { "\($0.name)=\($0.value)" } == after.map { "\($0.name)=\($0.value)" }, "\(label)")
            #expect(headers.count == after.count, "\(label)")
            Self.expectSameAnswers(request.headers)
        }
        // The changed request keeps its other parts; the parsed one is untouched.
        var changed = request
        changed.headers.add(name: "X-Added", value: "1")
        #expect(changed.headers["X-Added"] == "1" && changed.headers["Host"] == "example.test:8080")
        #expect(request.headers["X-Added"] == nil)
    }

    @Test("a head without fields, pipelined heads with content, and trailers that never become fields")
    func pipelinedHeadsAndBodies() throws {
        let text = "GET /a HTTP/1.0\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: b\r\nContent-Length: 5\r\nX-B: bee\r\n\r\nhello"
            + "POST /c HTTP/1.1\r\nHost: c\r\nTransfer-Encoding: chunked\r\nX-C: sea\r\n\r\n3\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n"
            + "GET /d HTTP/1.1\r\nhost: d\r\n\r\n"
        for chunk in [Int.max, 1, 3, 11] {
            let result = parseAll(text, limits: Self.limits, chunk: chunk)
            #expect(result.error == nil, "chunk \(chunk)")
            #expect(result.requests.count == 4, "chunk \(chunk)")
            guard result.requests.count == 4 else { continue }
            let (a, b, c, d) = (result.requests[0], result.requests[1], result.requests[2], result.requests[3])
            #expect(a.headers.isEmpty && a.headers.fields.isEmpty && a.headers["Host"] == nil)
            #expect(b.headers.fields.map(\.name) == ["Host", "Content-Length", "X-B"] && b.headers["x-b"] == "bee" && b.body == Array("hello".utf8))
            #expect(c.headers.fields.map(\.name) == ["Host", "Transfer-Encoding", "X-C"] && c.headers["X-Trailer"] == nil)
            #expect(c.headers["x-c"] == "sea" && c.body == Array("abc".utf8))
            #expect(d.headers.fields.map { "\($0.name)=\($0.value)" } == ["host=d"])
        }
    }

    @Test("every received name is found in any letter case among 96 fields, and names one byte apart are not")
    func manyFieldsAreFoundInAnyCase() throws {
        let names = (0..<96).map { "X-Field-\($0)-\(["a", "Z", "m"][$0 % 3])" }
        let head = "GET / HTTP/1.1\r\nHost: h\r\n" + names.enumerated().map { "\($1): v\($0)\r\n" }.joined() + "\r\n"
        let request = try #require(
            parseAll(head, limits: HTTPServerConfiguration.Limits(headerBytes: 8192, headerCount: 100)).requests.first)
        for (index, name) in names.enumerated() {
            for form in [name, name.uppercased(), name.lowercased()] {
                #expect(request.headers[form] == "v\(index)", "\(form)")
            }
        }
        // A few fields: names one byte apart from a present one are not found; present names are
        // found whatever case their letters take.
        let few = try #require(
            parseAll("GET / HTTP/1.1\r\nHost: h\r\nAccept: a\r\nhub-components: c\r\nTRACEPARENT: t\r\n\r\n").requests.first)
        for (name, value) in [("accept", "a"), ("ACCEPT", "a"), ("Hub-Components", "c"), ("traceParent", "t"), ("HOST", "h")] {
            #expect(few.headers[name] == value, "\(name)")
        }
        for absent in ["Accepts", "Acceqt", "Hub-Component", "X-Request-Id", "Connection", "If-None-Match", "Origin", "tracestate", ""] {
            #expect(few.headers[absent] == nil && !few.headers.contains(absent), "\(absent)")
        }
    }

    @Test("names are compared as ASCII letters only: '^' and '~' stay different, as do bytes past ASCII")
    func caseFoldingIsLettersOnly() throws {
        let request = try #require(parseAll("GET / HTTP/1.1\r\nHost: h\r\nA^B: caret\r\nX-A: a\r\n\r\n").requests.first)
        #expect(request.headers["a^b"] == "caret")
        #expect(request.headers["A~B"] == nil)
        #expect(request.headers["A~b"] == nil)
        #expect(request.headers["x-\u{C1}"] == nil)
        #expect(request.headers["X-A"] == "a")
    }

    @Test("over a socket, a head of many fields sent in pieces is read as sent, request after request")
    func fieldsOverASocket() async throws {
        var router = Router()
        router.add(.get, "/fields") { request, _ in
            var lines = request.headers.fields.map { "\($0.name)=\($0.value)" }
            lines.append("dup=" + request.headers.values(for: "x-dup").joined(separator: "|"))
            lines.append("ua=" + (request.headers["USER-AGENT"] ?? "-"))
            return .text(lines.joined(separator: "\n"))
        }
        let configuration = testConfiguration { $0.limits.headerBytes = 4096; $0.limits.headerCount = 20 }
        try await withServer(configuration, responder: router) { server in
            let client = try LoopbackClient(port: server.localPort)
            let head = "GET /fields" + Self.head.dropFirst("GET /view?uri=hub%3Ahome".count)
            let bytes = Array(head.utf8)
            let responses = try await blocking {
                // The first head in three writes with pauses (the server reads it in pieces), the
                // second pipelined behind it in one write.
                var responses: [LoopbackResponse] = []
                for range in [0..<40, 40..<300, 300..<bytes.count] {
                    try client.send(Array(bytes[range]))
                    usleep(20_000)
                }
                responses.append(try client.readResponse())
                try client.send(bytes + Array("GET /fields HTTP/1.1\r\nHost: short\r\n\r\n".utf8))
                responses.append(try client.readResponse())
                responses.append(try client.readResponse())
                return responses
            }
            let expected = Self.expected.map { "\($0.name)=\($0.value)" } + ["dup=1|2|three", "ua=" + Self.expected[1].value]
            #expect(responses[0].status == 200 && responses[0].text == expected.joined(separator: "\n"))
            #expect(responses[1].text == expected.joined(separator: "\n"))
            #expect(responses[2].text == ["Host=short", "dup=", "ua=-"].joined(separator: "\n"))
        }
    }
}

extension ReceivedFieldsTests {
    @Test("headers stay one word wide in a response, whichever representation they hold")
    func headersAreOneWord() {
        // HTTPResponse holds its headers inline and is copied a dozen times per request: one
        // reference to retain, as before the received representation (docs/PERFORMANCE.md).
        #expect(MemoryLayout<HTTPHeaders>.size == MemoryLayout<Int>.size)
    }
}
