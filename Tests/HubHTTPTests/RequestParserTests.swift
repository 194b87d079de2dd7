import Testing
@_spi(Benchmarks) @testable import HubHTTP

@Suite struct RequestParserTests {
    @Test func simpleGetWithOrderedHeaders() throws {
        let result = parseAll("GET /view?uri=hub%3Ahome&x=1+2&x=3 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\nX-A: 1\r\nx-a: 2\r\n\r\n")
        #expect(result.error == nil)
        let request = try #require(result.requests.first)
        #expect(request.method == .get)
        #expect(request.target == "/view?uri=hub%3Ahome&x=1+2&x=3")
        #expect(request.path == "/view")
        #expect(request.queryValues("uri") == ["hub:home"])
        #expect(request.queryValues("x") == ["1+2", "3"])
        #expect(request.query.map(\.name) == ["uri", "x", "x"])
        #expect(request.version == .http1_1)
        #expect(request.headers["accept"] == "*/*")
        #expect(request.headers.values(for: "X-A") == ["1", "2"])
        #expect(request.headers.fields.map(\.name) == ["Host", "Accept", "X-A", "x-a"])
        #expect(request.keepAlive)
    }

    @Test("a parsed request keeps its target as sent when another field is set, and takes a new one")
    func targetSurvivesChanges() throws {
        let target = "/view?session=" + String(repeating: "t", count: 120) + "&uri=hub%3Ahome"
        var request = try #require(parseAll("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n").requests.first)
        let copy = request
        request.headers.add(name: "X-Added", value: "1")
        request.method = .head
        #expect(request.target == target)
        #expect(request.queryValues("uri") == ["hub:home"])
        #expect(copy.target == target)
        #expect(copy.headers["X-Added"] == nil)
        #expect(copy.method == .get)
        request.target = "/other"
        #expect(request.target == "/other")
        #expect(copy.target == target)
        #expect(try #require(parseAll("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").requests.first).target == "*")
        // One parser, request after request: a long target, a short one, then a long one again,
        // each exactly as sent, also when read byte by byte.
        let long = "/a?" + String(repeating: "x", count: 1100)
        let text = ["/a?\(String(repeating: "y", count: 200))", long, "/b", long, "/c?d=e"]
            .map { "GET \($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
        for chunk in [1, 5, 1000, .max] {
            let parsed = parseAll(text, chunk: chunk)
            #expect(parsed.requests.map(\.target) == ["/a?\(String(repeating: "y", count: 200))", long, "/b", long, "/c?d=e"])
        }
    }

    @Test("the parser benchmark's hook counts whole requests and stops at a partial one")
    func benchmarkHookCountsWholeRequests() {
        let pair = Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        #expect(RequestParsingBenchmark.parse(pair, times: 3) == 6)
        // A request cut short waits for bytes that never come: not counted, and the hook returns.
        #expect(RequestParsingBenchmark.parse(Array("GET /a HTTP/1.1\r\nHo".utf8), times: 1) == 0)
        #expect(RequestParsingBenchmark.parse(Array("GET /a HTTP/1.1\r\n\r\n".utf8), times: 1) == nil)
    }

    @Test("the benchmarks' request hook gives exactly one whole request, its fields read as received")
    func benchmarkRequestHookParsesOneRequest() throws {
        let request = try #require(RequestParsingBenchmark.request(
            Array("GET /view?uri=hub:a HTTP/1.1\r\nHost: h\r\nHub-Client: ios/4\r\nHub-Client: ios/5\r\n\r\n".utf8)))
        #expect(request.path == "/view")
        #expect(request.headers["hub-client"] == "ios/4")
        #expect(request.headers.values(for: "Hub-Client") == ["ios/4", "ios/5"])
        // Part of a request, two requests, or an invalid one: none.
        #expect(RequestParsingBenchmark.request(Array("GET /a HTTP/1.1\r\nHo".utf8)) == nil)
        #expect(RequestParsingBenchmark.request(Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n".utf8)) == nil)
        #expect(RequestParsingBenchmark.request(Array("GET /a HTTP/1.1\r\n\r\n".utf8)) == nil)
    }

    @Test func byteByByteEqualsWhole() {
        let text = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        for chunk in [1, 2, 3, 7, 1000] {
            let result = parseAll(text, chunk: chunk)
            #expect(result.error == nil)
            #expect(result.requests.map(\.path) == ["/a", "/b"])
            #expect(result.requests.first?.body == Array("hello".utf8))
        }
    }

    @Test func valueWhitespaceTrimmedAndObsTextKept() throws {
        let result = parseAll("GET / HTTP/1.1\r\nHost: h\r\nX: \t a b \t\r\nY: caf\u{e9}\r\nZ:\r\n\r\n")
        let request = try #require(result.requests.first)
        #expect(request.headers["X"] == "a b")
        #expect(request.headers["Y"] == "caf\u{e9}")
        #expect(request.headers["Z"] == "")
    }

    @Test func leadingEmptyLinesIgnored() {
        #expect(parseAll("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").requests.count == 1)
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let text = "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
        for chunk in [1, 4, 1000] {
            let result = parseAll(text, chunk: chunk)
            #expect(result.error == nil)
            let request = try #require(result.requests.first)
            #expect(String(decoding: request.body, as: UTF8.self) == "hello world")
            #expect(request.headers["X-Trailer"] == nil)
        }
    }

    @Test("framing field names in any case frame the request; names one byte away do not")
    func framingFieldNamesInAnyCase() throws {
        let mixed = parseAll("POST /m HTTP/1.1\r\nhOsT: h\r\ncOnTeNt-LeNgTh: 3\r\n\r\nabcGET /n HTTP/1.1\r\nHOST: h\r\n\r\n")
        #expect(mixed.error == nil)
        #expect(mixed.requests.map(\.path) == ["/m", "/n"])
        #expect(mixed.requests.first?.body == Array("abc".utf8))
        #expect(errorOf("GET / HTTP/1.1\r\nHost: h\r\nHOST: h\r\n\r\n")?.code == "duplicate_host")
        #expect(errorOf("POST / HTTP/1.1\r\nHost: h\r\nCONTENT-LENGTH: 1\r\ncontent-length: 1\r\n\r\na")?.code == "duplicate_content_length")
        #expect(errorOf("POST / HTTP/1.1\r\nHost: h\r\nTRANSFER-ENCODING: gzip\r\n\r\n")?.code == "invalid_transfer_encoding")
        #expect(errorOf("GET / HTTP/1.1\r\nHost: h\r\nEXPECT: nothing\r\n\r\n")?.status.code == 417)
        #expect(errorOf("GET / HTTP/1.1\r\nHOST: a b\r\n\r\n")?.code == "invalid_host")
        // Not framing fields: the body is not read, the next bytes are the next request line.
        let near = parseAll("POST /a HTTP/1.1\r\nHost: h\r\nContent_Length: 3\r\nContent-Lengtx: 3\r\nHosts: x y\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(near.error == nil)
        #expect(near.requests.map(\.path) == ["/a", "/b"])
        #expect(near.requests.first?.headers["content_length"] == "3")
        #expect(errorOf("GET / HTTP/1.1\r\nHosu: h\r\n\r\n")?.code == "missing_host")
    }

    @Test("the token and host byte classes are the grammar's, for every byte value")
    func byteClassesMatchTheGrammar() {
        let alphanumeric = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let tchar = alphanumeric.union("!#$%&'*+-.^_`|~".utf8)
        let host = alphanumeric.union("-._~!$&'()*+,;=:[]%".utf8)
        for value in 0...255 {
            let byte = UInt8(value)
            #expect(RequestParser.isTokenByte(byte) == tchar.contains(byte), "token byte \(value)")
            #expect(RequestParser.isHostByte(byte) == host.contains(byte), "host byte \(value)")
        }
    }

    @Test func transferEncodingCaseInsensitive() {
        let result = parseAll("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(result.requests.first?.body == Array("abc".utf8))
    }

    @Test func pipelinedRequestsInOrder() {
        let text = (1...5).map { "GET /\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
        #expect(parseAll(text).requests.map(\.path) == ["/1", "/2", "/3", "/4", "/5"])
    }

    @Test func limits() {
        let limits = HTTPServerConfiguration.Limits(requestLineBytes: 64, headerBytes: 128, headerCount: 3, bodyBytes: 10)
        #expect(errorOf("GET /\(String(repeating: "a", count: 100)) HTTP/1.1\r\n\r\n", limits: limits)?.status.code == 414)
        // Too long even before the line ends: answered without waiting for the CRLF.
        #expect(errorOf("GET /\(String(repeating: "a", count: 100))", limits: limits)?.status.code == 414)
        #expect(errorOf("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "b", count: 200))\r\n\r\n", limits: limits)?.code == "headers_too_large")
        #expect(errorOf("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "b", count: 200))", limits: limits)?.status.code == 431)
        #expect(errorOf("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits)?.code == "too_many_headers")
        #expect(errorOf("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits) == nil)
        // 413 as soon as the headers show it: no content sent at all.
        #expect(errorOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: limits)?.status.code == 413)
        #expect(errorOf("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits) == nil)
        let chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\n"
        #expect(errorOf(chunked, limits: limits)?.status.code == 413)
        let trailers = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(errorOf(trailers, limits: limits)?.status.code == 431)
    }

    @Test(arguments: [
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", "ambiguous_framing"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", "duplicate_content_length"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc", "invalid_content_length"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", "invalid_content_length"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\n", "invalid_content_length"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n", "invalid_content_length"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n", "invalid_content_length"),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", "invalid_transfer_encoding"),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", "invalid_transfer_encoding"),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", "invalid_transfer_encoding"),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", "invalid_transfer_encoding"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", "obs_fold"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\nY: b\r\n\r\n", "bare_lf"),
        ("GET / HTTP/1.1\nHost: h\r\n\r\n", "bare_lf"),
        ("GET / HTTP/1.1\r\nHost: h\r\n\n", "bare_lf"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", "invalid_header_value"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", "invalid_header_value"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7f}\r\n\r\n", "invalid_header_value"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX : a\r\n\r\n", "invalid_header_name"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX\u{0}: a\r\n\r\n", "invalid_header_name"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX(: a\r\n\r\n", "invalid_header_name"),
        ("GET / HTTP/1.1\r\nHost: h\r\n: a\r\n\r\n", "invalid_header_name"),
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", "invalid_header"),
        ("GET / HTTP/1.1\r\n\r\n", "missing_host"),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "duplicate_host"),
        ("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "invalid_host"),
        ("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", "invalid_host"),
        ("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", nil),
        ("GET / HTTP/1.1\r\nHost: \r\n\r\n", nil),
        ("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_target"),
        ("GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", nil),
        ("G\u{0}T / HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_method"),
        ("GET /a\u{1}b HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_target"),
        ("GET HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_request_line"),
        ("GET / FOO/1.1\r\nHost: h\r\n\r\n", "invalid_version"),
        // The HTTP-name is "HTTP", case-sensitive (RFC 9112 section 2.3), each of its bytes checked.
        ("GET / http/1.1\r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET / XTTP/1.1\r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET / HXTP/1.1\r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET / HTXP/1.1\r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET / HTTX/1.1\r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET / HTTP-1.1\r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET / HTTP/1,1\r\nHost: h\r\n\r\n", "invalid_version"),
        ("GET * HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_target"),
        ("GET foo HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_target"),
        ("GET /?a=%zz HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_query"),
        ("GET /?a=%4 HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_query"),
        ("GET /?a=% HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_query"),
        ("GET /?a=%00 HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_query"),
        ("GET /?a=%FF HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_query"),
        ("GET /?a=%ED%A0%80 HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_query"),
        ("GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_path"),
        ("GET /%00 HTTP/1.1\r\nHost: h\r\n\r\n", "invalid_path"),
    ] as [(String, String?)])
    func badRequests(fixture: String, code: String?) {
        let error = errorOf(fixture)
        #expect(error?.code == code, "\(fixture.debugDescription)")
        if code != nil { #expect(error?.status.code == 400) }
    }

    @Test func notImplementedAndVersion() {
        #expect(errorOf("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")?.status.code == 501)
        #expect(errorOf("CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n")?.status.code == 501)
        #expect(errorOf("GET / HTTP/2.0\r\nHost: h\r\n\r\n")?.status.code == 505)
        #expect(errorOf("GET / HTTP/1.1\r\nHost: h\r\nExpect: something\r\n\r\n")?.status.code == 417)
    }

    @Test(arguments: ["zz", "", " 5", "5 x", "-1", "ffffffffffffffffff"])
    func invalidChunkSizes(size: String) {
        let text = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n"
        let error = errorOf(text)
        #expect(error != nil)
        #expect(error?.status.code == 400 || error?.status.code == 413)
    }

    @Test func chunkDataMustEndWithCRLF() {
        let text = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n"
        #expect(errorOf(text)?.code == "invalid_chunk")
    }

    @Test func keepAliveRules() throws {
        func keepAlive(_ text: String) throws -> Bool { try #require(parseAll(text).requests.first).keepAlive }
        #expect(try keepAlive("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        #expect(try !keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"))
        #expect(try !keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, Close\r\n\r\n"))
        #expect(try !keepAlive("GET / HTTP/1.0\r\n\r\n"))
        #expect(try keepAlive("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"))
    }

    @Test func expectContinue() throws {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
        var parser = RequestParser(limits: .init())
        parser.append(Array(head.utf8))
        guard case .expectContinue = try parser.parse() else { Issue.record("no 100-continue"); return }
        guard case .needMoreData = try parser.parse() else { Issue.record("expected needMoreData"); return }
        #expect(parser.phase == .body)
        parser.append(Array("abc".utf8))
        guard case .request(let request) = try parser.parse() else { Issue.record("no request"); return }
        #expect(request.body == Array("abc".utf8))
        // Body already sent with the head: no interim response.
        #expect(parseAll(head + "abc").continues == 0)
        // No content: no interim response either.
        #expect(parseAll("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n").continues == 0)
    }

    @Test func absoluteFormTarget() throws {
        let request = try #require(parseAll("GET http://example.com:80/a%20b?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n").requests.first)
        #expect(request.path == "/a b")
        #expect(request.queryValues("q") == ["1"])
        let bare = try #require(parseAll("GET HTTPS://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n").requests.first)
        #expect(bare.path == "/")
        let options = try #require(parseAll("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").requests.first)
        #expect(options.path == "*")
    }

    @Test func percentDecoding() throws {
        let request = try #require(parseAll("GET /caf%C3%A9/%2B?n%61me=a%26b&empty&=v&&k=%E2%9C%93 HTTP/1.1\r\nHost: h\r\n\r\n").requests.first)
        #expect(request.path == "/café/+")
        #expect(request.query.map(\.name) == ["name", "empty", "", "k"])
        #expect(request.query.map(\.value) == ["a&b", "", "v", "✓"])
    }

    @Test func http10WithoutHost() throws {
        let request = try #require(parseAll("HEAD /x HTTP/1.0\r\n\r\n").requests.first)
        #expect(request.method == .head)
        #expect(request.version == .http1_0)
    }

    @Test func extensionMethodsKept() throws {
        #expect(try #require(parseAll("PURGE / HTTP/1.1\r\nHost: h\r\n\r\n").requests.first).method.rawValue == "PURGE")
    }

    @Test func phases() throws {
        var parser = RequestParser(limits: .init())
        #expect(parser.phase == .idle)
        parser.append(Array("GET / HT".utf8))
        _ = try parser.parse()
        #expect(parser.phase == .head)
        parser.append(Array("TP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\na".utf8))
        _ = try parser.parse()
        #expect(parser.phase == .body)
        parser.append(Array("b".utf8))
        guard case .request = try parser.parse() else { Issue.record("no request"); return }
        #expect(parser.phase == .idle)
    }

    @Test func errorsAreSticky() {
        var parser = RequestParser(limits: .init())
        parser.append(Array("GET / HTTP/1.1\r\nX : y\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.parse() }
        parser.append(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.parse() }
    }
}
