import HubTestSupport
import Testing
@testable import HubHTTP

/// The request head as the parser reads it in place, over a real socket: framing fields named in
/// any case frame the request, names one byte away frame nothing, and a field value with a
/// control byte is a 400 problem, after which the server serves other clients.
@Suite struct HeadOverSocketTests {
    @Test("framing fields in any case frame a pipelined request; names one byte away do not")
    func framingFieldsInAnyCase() async throws {
        try await withServer { server in
            let client = try LoopbackClient(port: server.localPort)
            let (echo, hello) = try await blocking {
                try client.send("POST /echo HTTP/1.1\r\nhOsT: x\r\ncOnTeNt-LeNgTh: 3\r\n\r\nabcGET /hello HTTP/1.1\r\nHOST: x\r\n\r\n")
                return (try client.readResponse(), try client.readResponse())
            }
            #expect(echo.status == 200)
            #expect(echo.text == "abc")
            #expect(hello.status == 200)
            #expect(hello.text == "hello")

            // `Content_Length` and `Content-Lengtx` frame no body: the next bytes are the next request.
            let near = try LoopbackClient(port: server.localPort)
            let (first, second) = try await blocking {
                try near.send("GET /hello HTTP/1.1\r\nHost: x\r\nContent_Length: 3\r\nContent-Lengtx: 3\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
                return (try near.readResponse(), try near.readResponse())
            }
            #expect(first.status == 200 && second.status == 200)
        }
    }

    @Test("a control byte in a field value, in any place of an eight-byte word, is a 400 problem; others are still served")
    func controlBytesInFieldValues() async throws {
        try await withServer { server in
            // A tab beside the control byte (a word the scan rechecks byte by byte), a DEL, a NUL
            // past the first word, and a duplicate Host in upper case.
            let heads: [(String, String)] = [
                ("X: a\tb\u{1}cdef", "invalid_header_value"),
                ("X: abcdefgh\u{7f}", "invalid_header_value"),
                ("X: abcdefghijk\u{0}", "invalid_header_value"),
                ("HOST: y", "duplicate_host"),
                ("X: a", ""),
            ]
            for (field, code) in heads {
                let client = try LoopbackClient(port: server.localPort)
                let response = try await blocking {
                    try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\(field)\r\n\r\n")
                    return try client.readResponse()
                }
                if code.isEmpty {
                    #expect(response.status == 200, "\(field.debugDescription)")
                } else {
                    #expect(response.status == 400, "\(field.debugDescription)")
                    #expect(response.header("Content-Type") == "application/problem+json", "\(field.debugDescription)")
                    #expect(response.text.contains(code), "\(field.debugDescription)")
                }
            }
            // A tab is allowed in a value, also beside other bytes in one word.
            let tabbed = try LoopbackClient(port: server.localPort)
            let served = try await blocking {
                try tabbed.send("GET /hello HTTP/1.1\r\nHost: x\r\nX: a\tb\tc\td\te\r\n\r\n")
                return try tabbed.readResponse()
            }
            #expect(served.status == 200)
        }
    }
}
