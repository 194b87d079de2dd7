@testable import HubHTTP
import HubTestSupport
import Testing

/// ``RepeatedRequest``: a connection that reads exactly the bytes of its last request answers
/// that request again without a parse, and every other read is parsed, so what a client gets is
/// what parsing would give it.
@Suite struct RepeatedRequestTests {
    static let head = head(client: "ios/4.2.0")

    static func head(client: String) -> String {
        "GET /echo-head?q=1 HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nHub-Client: \(client)\r\n\r\n"
    }

    /// A request parsed from `text` by a fresh parser.
    static func parsed(_ text: String) throws -> HTTPRequest {
        var parser = RequestParser(limits: testConfiguration().limits)
        parser.append(Array(text.utf8))
        var spans: [ReceivedFields.Span] = []
        guard case .request(let request) = try parser.parse(spans: &spans) else { throw HarnessError("no request in \(text)") }
        return request
    }

    static func repeated(_ kept: RepeatedRequest, by text: String) -> HTTPRequest? {
        Array(text.utf8).withUnsafeBytes { kept.request(repeatedBy: $0) }
    }

    static func keeping(_ text: String, in kept: inout RepeatedRequest) throws {
        let request = try parsed(text)
        Array(text.utf8).withUnsafeBytes { kept.keep(request, parsedFrom: $0) }
    }

    @Test("the kept request answers its own bytes; a byte changed outside a value, one more or one fewer, is another read")
    func exactBytesOnly() throws {
        var kept = RepeatedRequest()
        #expect(Self.repeated(kept, by: Self.head) == nil, "nothing kept yet")
        try Self.keeping(Self.head, in: &kept)
        let again = try #require(Self.repeated(kept, by: Self.head))
        #expect(again.path == "/echo-head")
        #expect(again.headers["Hub-Client"] == "ios/4.2.0")
        let bytes = Array(Self.head.utf8)
        // The values of Accept and Hub-Client may change (RepeatedRequestValueTests); no other byte.
        let values = [Self.range(of: "application/json", in: Self.head), Self.range(of: "ios/4.2.0", in: Self.head)]
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x20
            let answer = changed.withUnsafeBytes { kept.request(repeatedBy: $0) }
            if values.contains(where: { $0.contains(index) }) {
                if let answer { #expect(try RepeatedRequestValueTests.same(answer, RepeatedRequestValueTests.parse(changed)), "byte \(index)") }
            } else {
                #expect(answer == nil, "byte \(index) changed")
            }
        }
        #expect(Self.repeated(kept, by: Self.head + "G") == nil)
        #expect(Self.repeated(kept, by: String(Self.head.dropLast())) == nil)
    }

    /// Where `part` lies in `text`'s UTF-8 bytes.
    static func range(of part: String, in text: String) -> Range<Int> {
        let start = text.utf8.distance(from: text.startIndex, to: text.firstRange(of: part)!.lowerBound)
        return start..<start + part.utf8.count
    }

    @Test("a request with a body or over 2 KiB is not kept (the one before stays); a later request replaces it")
    func whatIsKept() throws {
        var kept = RepeatedRequest()
        try Self.keeping(Self.head, in: &kept)
        let post = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
        try Self.keeping(post, in: &kept)
        #expect(Self.repeated(kept, by: post) == nil)
        let long = "GET /hello HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "p", count: 2048))\r\n\r\n"
        var parser = RequestParser(limits: testConfiguration { $0.limits.headerBytes = 8192 }.limits)
        parser.append(Array(long.utf8))
        var spans: [ReceivedFields.Span] = []
        guard case .request(let request) = try parser.parse(spans: &spans) else { throw HarnessError("no request") }
        Array(long.utf8).withUnsafeBytes { kept.keep(request, parsedFrom: $0) }
        #expect(Self.repeated(kept, by: long) == nil)
        #expect(Self.repeated(kept, by: Self.head) != nil, "the request kept before still answers its bytes")
        let other = "GET /hello HTTP/1.1\r\nHost: y\r\n\r\n"
        try Self.keeping(other, in: &kept)
        #expect(Self.repeated(kept, by: other)?.headers["Host"] == "y")
        #expect(Self.repeated(kept, by: Self.head) == nil)
    }

    /// Answers what the server saw: the path, the query, a header, the peer's address.
    static func router() -> Router {
        var router = testRouter()
        router.add(.get, "/echo-head") { request, _ in
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return .text("\(request.path)?\(query) client=\(request.headers["Hub-Client"] ?? "-") peer=\(request.remoteAddress ?? "-")")
        }
        return router
    }

    @Test("over a socket: a repeat is answered as parsing would answer it, each with its own request id, and counted")
    func repeatsOverASocket() async throws {
        try await withServer(testConfiguration { $0.limits.headerBytes = 8192 }, responder: Self.router()) { server in
            let first = try LoopbackClient(port: server.localPort)
            let second = try LoopbackClient(port: server.localPort, source: "127.0.0.2")
            let before = server.requestsRepeated
            let answers = try await blocking {
                var answers: [LoopbackResponse] = []
                for _ in 0..<3 {
                    try first.send(Self.head)
                    answers.append(try first.readResponse())
                }
                // The same bytes on another connection: its own peer, never the first's request.
                try second.send(Self.head)
                answers.append(try second.readResponse())
                return answers
            }
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(answers[0..<3].allSatisfy { $0.text == "/echo-head?q=1 client=ios/4.2.0 peer=127.0.0.1" })
            #expect(answers[3].text == "/echo-head?q=1 client=ios/4.2.0 peer=127.0.0.2", "the second connection's peer is its own")
            #expect(Set(answers.compactMap { $0.headers["X-Request-Id"] }).count == 4, "every request has an id of its own")
            #expect(server.requestsRepeated == before + 2, "the second and third reads of the first connection were repeats")

            // One field's value changed at the same length: the kept request with the new value,
            // not parsed; at another length: parsed. Each answered with its new value.
            let replies = try await blocking {
                try first.send(Self.head(client: "ios/4.2.1"))
                let same = try first.readResponse()
                try first.send(Self.head(client: "ios/4.10.0"))
                return (same, try first.readResponse())
            }
            #expect(replies.0.text == "/echo-head?q=1 client=ios/4.2.1 peer=127.0.0.1")
            #expect(replies.1.text == "/echo-head?q=1 client=ios/4.10.0 peer=127.0.0.1")
            #expect(server.requestsRepeated == before + 3, "the value of the same length was not parsed")
        }
    }

    @Test("pipelined repeats, a long repeat and a body are parsed as usual and all answered in order")
    func otherReadsAreParsed() async throws {
        try await withServer(testConfiguration { $0.limits.headerBytes = 8192 }, responder: Self.router()) { server in
            let client = try LoopbackClient(port: server.localPort)
            let long = "GET /hello HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "p", count: 2048))\r\n\r\n"
            let post = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            let before = server.requestsRepeated
            let answers = try await blocking {
                var answers: [LoopbackResponse] = []
                try client.send(Self.head + Self.head)
                answers.append(try client.readResponse())
                answers.append(try client.readResponse())
                for text in [long, long, post, post] {
                    try client.send(text)
                    answers.append(try client.readResponse())
                }
                return answers
            }
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200])
            #expect(answers[0].text == answers[1].text)
            #expect(answers[2].text == "hello" && answers[3].text == "hello")
            #expect(answers[4].text == "hello" && answers[5].text == "hello")
            #expect(server.requestsRepeated == before, "none of those reads repeated a kept request")
        }
    }
}
