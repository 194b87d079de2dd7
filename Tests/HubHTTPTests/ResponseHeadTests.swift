@testable import HubHTTP
import HubTestSupport
import Testing

/// The response head as the connection writes it, read line by line off a real socket: the
/// server owns framing, and a responder's header names and values cannot split the response.
@Suite struct ResponseHeadTests {
    /// A router whose responses carry hostile and framing headers the server must replace.
    static func router() -> Router {
        var router = Router()
        router.add(.get, "/hostile") { _, _ in
            HTTPResponse(
                status: HTTPStatus(code: 299, reasonPhrase: "Odd\r\nSet-Cookie: reason=1"),
                headers: [
                    "X-Value": "a\r\nSet-Cookie: value=1\0end",
                    "X-Na\r\nme": "b",
                    "Content-Length": "999",
                    "Date": "yesterday",
                    "Connection": "upgrade",
                    "Transfer-Encoding": "chunked",
                    "Cache-Control": "no-store",
                ],
                body: .bytes(Array("hello".utf8)))
        }
        router.add(.get, "/many") { _, _ in
            var headers = HTTPHeaders()
            for index in 0..<200 { headers.add(name: "X-Field-\(index)", value: String(repeating: "v", count: index)) }
            headers.add(name: "X-Long", value: String(repeating: "L", count: 20_000))
            return HTTPResponse(status: .ok, headers: headers, body: .bytes([]))
        }
        return router
    }

    /// The head's lines, without the final empty one.
    static func readHeadLines(_ client: LoopbackClient) throws -> [String] {
        var lines: [String] = []
        while true {
            let line = try client.readLine()
            if line.isEmpty { return lines }
            lines.append(line)
        }
    }

    @Test func hostileHeadersAreSanitizedAndFramingIsTheServers() async throws {
        try await withServer(responder: Self.router()) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (lines, body) = try await blocking {
                try client.send("GET /hostile HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc\r\n\r\n")
                let lines = try Self.readHeadLines(client)
                return (lines, try client.readExactly(5))
            }
            // CR, LF and NUL become spaces: no line starts a header the responder did not name.
            #expect(lines.first == "HTTP/1.1 299 Odd  Set-Cookie: reason=1")
            #expect(lines.contains("X-Value: a  Set-Cookie: value=1 end"))
            #expect(lines.contains("X-Na  me: b"))
            #expect(!lines.contains { $0.hasPrefix("Set-Cookie") })
            // Framing is the server's: its own Content-Length and Date, no Connection or
            // Transfer-Encoding from the responder; the responder's other fields as given.
            #expect(lines.filter { $0.hasPrefix("Content-Length:") } == ["Content-Length: 5"])
            let dates = lines.filter { $0.hasPrefix("Date: ") }
            #expect(dates.count == 1)
            #expect(dates.first?.utf8.count == 6 + 29)
            #expect(dates.first?.hasSuffix(" GMT") == true)
            #expect(!lines.contains { $0.hasPrefix("Connection:") || $0.hasPrefix("Transfer-Encoding:") })
            #expect(lines.contains("Cache-Control: no-store"))
            #expect(lines.filter { $0.hasPrefix("X-Request-Id:") } == ["X-Request-Id: abc"])
            #expect(String(decoding: body, as: UTF8.self) == "hello")
        }
    }

    @Test func largeHeadIsWrittenWhole() async throws {
        // 200 fields and a 20 KB value: the head is sized from its fields, never cut or overrun.
        try await withServer(responder: Self.router()) { server in
            let client = try LoopbackClient(port: server.localPort)
            let lines = try await blocking {
                try client.send("GET /many HTTP/1.1\r\nHost: x\r\n\r\n")
                return try Self.readHeadLines(client)
            }
            #expect(lines.first == "HTTP/1.1 200 OK")
            for index in 0..<200 {
                #expect(lines.contains("X-Field-\(index): " + String(repeating: "v", count: index)))
            }
            #expect(lines.contains("X-Long: " + String(repeating: "L", count: 20_000)))
            #expect(lines.contains("Content-Length: 0"))
        }
    }

    @Test func aGeneratedRequestIdIsWrittenAsItsText() {
        for value in [RequestID.Value.generated(0), .generated(0x1a), .generated(.max), RequestID.next()] {
            let head = ResponseEncoder.head(
                status: .ok, headers: [:], framing: .length(0), keepAlive: true, version: .http1_1, requestId: value)
            let text = String(decoding: head, as: UTF8.self)
            #expect(text.contains("\r\nX-Request-Id: \(value.text)\r\n"), "\(text)")
            let parts = value.text.split(separator: "-")
            #expect(parts.count == 2 && parts[0].utf8.count == 16, "\(value.text)")
        }
        #expect(RequestID.Value.generated(0x1a).text.hasSuffix("-1a"))
        #expect(RequestID.Value.generated(0).text.hasSuffix("-0"))
        #expect(RequestID.Value.generated(.max).text.hasSuffix("-ffffffffffffffff"))
        // Text is written as it is, sanitized as any field value.
        let given = ResponseEncoder.head(
            status: .ok, headers: [:], framing: .length(0), keepAlive: true, version: .http1_1, requestId: .text("a\r\nb"))
        #expect(String(decoding: given, as: UTF8.self).contains("\r\nX-Request-Id: a  b\r\n"))
    }

    @Test("a CR or LF anywhere in a long value is replaced, and a clean value is written as given")
    func lineBreaksInLongValuesAreReplaced() {
        let head = ResponseEncoder.head(
            status: .ok,
            headers: [
                "X-Long": "0123456789abcdef\r\nSet-Cookie: x=1", "X-Clean": "0123456789abcdefghij",
                "X-Tail": "0123456789abcdef\0", "X-Tab": "0123456789\tabcdef\u{0B}\u{0C}\u{0E}",
            ],
            framing: .length(0), keepAlive: true, version: .http1_1, requestId: nil)
        let text = String(decoding: head, as: UTF8.self)
        #expect(text.contains("\r\nX-Long: 0123456789abcdef  Set-Cookie: x=1\r\n"))
        #expect(text.contains("\r\nX-Clean: 0123456789abcdefghij\r\n"))
        // A NUL at a value's end is replaced too; a tab and the other controls are kept: only
        // CR, LF and NUL are replaced.
        #expect(text.contains("\r\nX-Tail: 0123456789abcdef \r\n"))
        #expect(text.contains("\r\nX-Tab: 0123456789\tabcdef\u{0B}\u{0C}\u{0E}\r\n"))
        #expect(!text.contains("\r\nSet-Cookie"))
    }

    @Test func headEncodesStatusCodesAndLengthsInDecimal() {
        for (code, length) in [(200, 0), (404, 9), (503, 1_234_567), (999, Int(Int32.max))] {
            let head = ResponseEncoder.head(
                status: HTTPStatus(code: code), headers: [:], framing: .length(length), keepAlive: false,
                version: .http1_1, requestId: .text("id"))
            let text = String(decoding: head, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 \(code) "))
            #expect(text.contains("\r\nContent-Length: \(length)\r\n"))
            #expect(text.contains("\r\nConnection: close\r\n"))
            #expect(text.hasSuffix("\r\n\r\n"))
        }
        let chunked = ResponseEncoder.head(
            status: .ok, headers: [:], framing: .chunked, keepAlive: true, version: .http1_0, requestId: nil)
        let text = String(decoding: chunked, as: UTF8.self)
        #expect(text.contains("\r\nTransfer-Encoding: chunked\r\n"))
        #expect(text.contains("\r\nConnection: keep-alive\r\n"))
        #expect(!text.contains("X-Request-Id"))
    }
}
