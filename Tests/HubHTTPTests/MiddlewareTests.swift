import Testing
@testable import HubHTTP

@Suite struct MiddlewareTests {
    let big = Array(String(repeating: "hello hub ", count: 300).utf8)

    func serve(_ response: HTTPResponse, _ middleware: [any HTTPMiddleware], headers: HTTPHeaders, method: HTTPMethod = .get) async throws -> HTTPResponse {
        let responder = ClosureResponder { _, _ in response }.wrapped(in: middleware)
        let request = HTTPRequest(method: method, target: "/", headers: headers)
        return try await responder.respond(to: request, context: RequestContext(requestId: "t"))
    }

    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("deflate, gzip;q=0.5", true), ("gzip;q=0", false), ("*", true),
        ("*;q=0", false), ("identity", false), ("identity, *;q=0.5", false), ("br", false), ("", false),
        ("gzip;q=0.5, identity;q=0.9", false), ("x-gzip", true), ("gzip;q=1.000", true), ("gzip;q=abc", false),
        ("*, gzip;q=0", false),
        // Without parameters (read without splitting): listed or not, case and spacing aside.
        ("gzip, deflate, br", true), ("deflate,br,GZip", true), (" \tbr ,  x-GZIP ", true), ("deflate, br, zstd", false),
        ("gzipx, xgzip", false), ("identity, deflate", false), (",,", false),
    ])
    func acceptEncodingQValues(header: String, gzip: Bool) {
        #expect(AcceptEncoding.prefersGzip([header]) == gzip, "\(header)")
        #expect(AcceptEncoding.prefersGzip(in: ["Accept-Encoding": header]) == gzip, "a list's field: \(header)")
        // As received: the field read in place from the parsed head's bytes.
        let parsed = parseAll("GET / HTTP/1.1\r\nHost: x\r\naccept-ENCODING: \(header)\r\n\r\n")
        #expect(parsed.requests.count == 1)
        if let request = parsed.requests.first {
            #expect(AcceptEncoding.prefersGzip(in: request.headers) == gzip, "received: \(header)")
        }
    }

    @Test("Accept-Encoding read in place: repeated fields are one list, no field is no gzip")
    func acceptEncodingInPlace() {
        let repeated = HTTPHeaders([(name: "accept-encoding", value: "br"), (name: "Accept-Encoding", value: "gzip;q=0.5")])
        #expect(AcceptEncoding.prefersGzip(in: repeated))
        let refused = HTTPHeaders([(name: "Accept-Encoding", value: "gzip"), (name: "Accept-Encoding", value: "gzip;q=0")])
        #expect(AcceptEncoding.prefersGzip(in: refused) == AcceptEncoding.prefersGzip(["gzip", "gzip;q=0"]))
        #expect(!AcceptEncoding.prefersGzip(in: ["Accept": "gzip"]))
    }

    @Test func gzipAboveThresholdRoundTrips() async throws {
        var original = HTTPResponse.json(big)
        original.headers.add(name: "ETag", value: ETag.strong(for: big))
        let response = try await serve(original, [RepresentationMiddleware(minBytes: 1024)], headers: ["Accept-Encoding": "gzip"])
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(response.headers["Vary"] == "Accept-Encoding")
        #expect(response.headers["ETag"]?.hasPrefix("W/\"") == true)
        let compressed = try #require(response.body.bytes)
        #expect(compressed.count < big.count)
        #expect(compressed.prefix(2) == [0x1F, 0x8B])
        #expect(Gzip.decompress(compressed) == big)
    }

    @Test func gzipSkipped() async throws {
        let gzip = RepresentationMiddleware(minBytes: 1024)
        let refused = try await serve(.json(big), [gzip], headers: ["Accept-Encoding": "gzip;q=0"])
        #expect(refused.headers["Content-Encoding"] == nil)
        #expect(refused.headers["Vary"] == "Accept-Encoding")
        let small = try await serve(.json(Array("{}".utf8)), [gzip], headers: ["Accept-Encoding": "gzip"])
        #expect(small.headers["Content-Encoding"] == nil)
        #expect(small.headers["Vary"] == nil)
        let noContent = try await serve(HTTPResponse(status: .noContent, bytes: big), [gzip], headers: ["Accept-Encoding": "gzip"])
        #expect(noContent.headers["Content-Encoding"] == nil)
        let stream = try await serve(.serverSentEvents(AsyncStream { $0.finish() }), [gzip], headers: ["Accept-Encoding": "gzip"])
        #expect(stream.headers["Content-Encoding"] == nil)
    }

    @Test func etagAndIfNoneMatch() async throws {
        let tag = ETag.strong(for: big)
        #expect(tag.count == 18 && tag.hasPrefix("\"") && tag.hasSuffix("\""))
        #expect(tag == ETag.strong(for: big))
        #expect(tag != ETag.strong(for: big + [1]))
        #expect(ETag.strong(for: []) != ETag.strong(for: [0]))
        #expect(ETag.ifNoneMatch(tag, matches: tag))
        #expect(ETag.ifNoneMatch("\"x\", W/\(tag)", matches: tag))
        #expect(ETag.ifNoneMatch("*", matches: tag))
        #expect(!ETag.ifNoneMatch("\"other\"", matches: tag))

        var original = HTTPResponse.json(big)
        original.headers.add(name: "ETag", value: tag)
        original.headers.add(name: "Cache-Control", value: "no-cache")
        let middleware: [any HTTPMiddleware] = [RepresentationMiddleware()]
        let hit = try await serve(original, middleware, headers: ["If-None-Match": tag])
        #expect(hit.status == .notModified)
        #expect(hit.body.bytes == [])
        #expect(hit.headers["ETag"] == tag)
        #expect(hit.headers["Cache-Control"] == "no-cache")
        // RFC 9110 15.4.5: the 304 carries the ETag and Vary the 200 would: weak with gzip.
        let gzipHit = try await serve(original, middleware, headers: ["If-None-Match": tag, "Accept-Encoding": "gzip"])
        #expect(gzipHit.status == .notModified)
        #expect(gzipHit.headers["ETag"] == "W/" + tag)
        #expect(gzipHit.headers["Vary"] == "Accept-Encoding")
        #expect(gzipHit.headers["Content-Type"] == nil)
        let miss = try await serve(original, middleware, headers: ["If-None-Match": "\"nope\""])
        #expect(miss.status == .ok)
        let post = try await serve(original, middleware, headers: ["If-None-Match": tag], method: .post)
        #expect(post.status == .ok)
    }

    @Test func representationCarriesETagGzipAnd304() async throws {
        let representation = Representation(bytes: big)
        #expect(representation.etag == ETag.strong(for: big))
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Hub-Session": "s"]
        headers.add(name: "Cache-Control", value: "private, no-cache")
        let response = HTTPResponse(status: .ok, headers: headers, body: .representation(representation))
        let middleware: [any HTTPMiddleware] = [RepresentationMiddleware(minBytes: 1024)]

        let plain = try await serve(response, middleware, headers: [:])
        #expect(plain.body.bytes == big)
        #expect(plain.headers["ETag"] == representation.etag)
        #expect(plain.headers["Vary"] == "Accept-Encoding")
        #expect(plain.headers["Content-Encoding"] == nil)

        let zipped = try await serve(response, middleware, headers: ["Accept-Encoding": "gzip"])
        #expect(zipped.headers["Content-Encoding"] == "gzip")
        #expect(zipped.headers["ETag"] == "W/" + representation.etag)
        let compressed = try #require(zipped.body.bytes)
        #expect(Gzip.decompress(compressed) == big)
        // The gzip is made once: a second response carries the same bytes.
        #expect(representation.gzip(level: 9) == compressed)

        // One 304 policy: every field but the content metadata.
        for method in [HTTPMethod.get, .head] {
            let notModified = try await serve(
                response, middleware, headers: ["If-None-Match": "W/" + representation.etag], method: method)
            #expect(notModified.status == .notModified)
            #expect(notModified.body.bytes == [])
            #expect(notModified.headers["ETag"] == representation.etag)
            #expect(notModified.headers["Hub-Session"] == "s")
            #expect(notModified.headers["Cache-Control"] == "private, no-cache")
            #expect(notModified.headers["Vary"] == "Accept-Encoding")
            #expect(notModified.headers["Content-Type"] == nil)
        }
        // Small: no Vary, identity, ETag still sent.
        let small = Representation(bytes: Array("{}".utf8))
        let smallResponse = try await serve(
            HTTPResponse(body: .representation(small)), middleware, headers: ["Accept-Encoding": "gzip"])
        #expect(smallResponse.headers["Vary"] == nil)
        #expect(smallResponse.headers["ETag"] == small.etag)
        #expect(smallResponse.body.bytes == Array("{}".utf8))
    }

    @Test("the fields a responder set are found whatever their case: Vary in any of several fields, an encoding already applied, its own ETag")
    func representationReadsTheRespondersFields() async throws {
        let gzip = RepresentationMiddleware(minBytes: 1024)
        // `Accept-Encoding` listed in a second Vary field: not added again, gzip still chosen.
        var varied = HTTPResponse.json(big)
        varied.headers.add(name: "vary", value: "Origin")
        varied.headers.add(name: "VARY", value: "Cookie, accept-encoding")
        let variedOut = try await serve(varied, [gzip], headers: ["Accept-Encoding": "gzip"])
        #expect(variedOut.headers.values(for: "Vary") == ["Origin", "Cookie, accept-encoding"])
        #expect(variedOut.headers["Content-Encoding"] == "gzip")
        // `Vary: *` covers it too.
        var starred = HTTPResponse.json(big)
        starred.headers.add(name: "Vary", value: "*")
        #expect(try await serve(starred, [gzip], headers: ["Accept-Encoding": "gzip"]).headers.values(for: "Vary") == ["*"])
        // A body already encoded (`content-encoding` in lower case) is neither compressed nor varied.
        var encoded = HTTPResponse.json(big)
        encoded.headers.add(name: "content-encoding", value: "br")
        let encodedOut = try await serve(encoded, [gzip], headers: ["Accept-Encoding": "gzip"])
        #expect(encodedOut.headers.values(for: "Content-Encoding") == ["br"])
        #expect(encodedOut.headers["Vary"] == nil)
        #expect(encodedOut.body.bytes == big)
        // The responder's own ETag (`etag`): kept once on identity, weakened once on gzip, and
        // matched by If-None-Match.
        var tagged = HTTPResponse.json(big)
        tagged.headers.add(name: "etag", value: "\"v1\"")
        let identity = try await serve(tagged, [gzip], headers: [:])
        #expect(identity.headers.values(for: "ETag") == ["\"v1\""])
        let weak = try await serve(tagged, [gzip], headers: ["Accept-Encoding": "gzip"])
        #expect(weak.headers.values(for: "ETag") == ["W/\"v1\""])
        let notModified = try await serve(tagged, [gzip], headers: ["If-None-Match": "\"v1\""])
        #expect(notModified.status == .notModified)
        #expect(notModified.headers["ETag"] == "\"v1\"")
    }

    @Test func serverSentEventEncoding() {
        let event = ServerSentEvent(event: "view\nx", data: "line1\nline2\r\nline3", id: "7")
        #expect(String(decoding: event.encoded, as: UTF8.self) == "event: viewx\nid: 7\ndata: line1\ndata: line2\ndata: line3\n\n")
        #expect(String(decoding: ServerSentEvent(data: "").encoded, as: UTF8.self) == "data: \n\n")
    }

    @Test func headersOrderedCaseInsensitive() {
        var headers: HTTPHeaders = ["A": "1", "b": "2"]
        headers.add(name: "a", value: "3")
        #expect(headers.values(for: "A") == ["1", "3"])
        headers["A"] = "x"
        #expect(headers.fields.map(\.name) == ["A", "b"])
        headers["B"] = nil
        #expect(headers.count == 1)
    }
}
