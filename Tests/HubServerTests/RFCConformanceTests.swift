import Foundation
import HubModel
import HubTestSupport
import Testing

/// HTTP/1.1 details of RFC 9112 and RFC 9110, each over a real socket on one
/// kept-alive connection, so that "keeps the connection" is checked by a second request.
@Suite("RFC 9112 / 9110 details over a socket")
struct RFCConformanceTests {
    static func config() -> TestConfig {
        var config = TestConfig()
        config.feature("plain", #"""
            { "id": "plain", "title": "T", "match": { "root": "hub:plain" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "a", "text": { "title": "A" } } ] } } ] }
            """#)
        return config
    }

    /// Sends each raw request on one connection and reads each response in turn.
    static func exchange(_ port: Int, _ requests: [(String, method: String)]) async throws -> [LoopbackResponse] {
        try await blocking {
            let connection = try LoopbackClient(port: port)
            defer { connection.close() }
            var results: [LoopbackResponse] = []
            for (text, method) in requests {
                try connection.send(Array(text.utf8))
                results.append(try connection.readResponse(method: method))
            }
            return results
        }
    }

    static let health = ("GET /health HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET")

    static func chunkedAction(_ chunks: String) -> (String, method: String) {
        ("POST /action HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks,
         method: "POST")
    }

    @Test("7.1.1: chunk extensions are ignored; 7.1.2: trailer fields are accepted and discarded")
    func chunkExtensionsAndTrailers() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let body = #"{"uri":"hub:plain","action":"hub:reload"}"#
            let head = String(body.prefix(10)), tail = String(body.dropFirst(10))
            let results = try await Self.exchange(client.port, [
                Self.chunkedAction(
                    "\(String(head.utf8.count, radix: 16));name=value;quoted=\"a b;c\"\r\n\(head)\r\n"
                        + "\(String(tail.utf8.count, radix: 16)) ; ext\r\n\(tail)\r\n0;last=1\r\n\r\n"),
                Self.chunkedAction(
                    "\(String(body.utf8.count, radix: 16))\r\n\(body)\r\n0\r\nX-Checksum: abc\r\nServer-Timing: t;dur=1\r\n\r\n"),
                Self.health,
            ])
            #expect(results[0].status == 200, "\(results[0])")
            #expect(try results[0].json()["performed"]?.boolValue == true)
            #expect(results[1].status == 200, "trailers are accepted: \(results[1])")
            #expect(results[1].header("Server-Timing")?.contains("dur=1") != true, "a trailer is not echoed")
            #expect(results[2].status == 200, "the connection carries on")
        }
    }

    @Test("chunk extensions and trailers count against the header limits (431)")
    func extensionLimits() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let long = String(repeating: "x", count: 40_000)
            let extensionResult = try await Self.exchange(client.port, [Self.chunkedAction("2;e=\(long)\r\n{}\r\n0\r\n\r\n")])
            #expect(extensionResult[0].status == 431, "\(extensionResult[0])")
            let trailerResult = try await Self.exchange(client.port, [Self.chunkedAction("2\r\n{}\r\n0\r\nX-Big: \(long)\r\n\r\n")])
            #expect(trailerResult[0].status == 431, "\(trailerResult[0])")
        }
    }

    @Test("6.1: a transfer coding the server does not implement is 501")
    func unknownTransferCoding() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            for coding in ["gzip, chunked", "x-custom, chunked", "deflate,chunked"] {
                let result = try await Self.exchange(client.port, [(
                    "POST /action HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: \(coding)\r\n\r\n0\r\n\r\n",
                    method: "POST")])
                try expectProblem(result[0], 501, "transfer_coding_not_implemented")
                #expect(result[0].header("Connection")?.lowercased() == "close", "the body cannot be read: \(coding)")
            }
            // 6.3: chunked not last leaves the length undeterminable: 400 (a MUST, over 6.1's SHOULD).
            let notLast = try await Self.exchange(client.port, [(
                "POST /action HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", method: "POST")])
            try expectProblem(notLast[0], 400, "invalid_transfer_encoding")
        }
    }

    @Test("9.1: an unknown method is 501 (case-sensitive); a known method a route lacks is 405; the connection carries on")
    func methods() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let results = try await Self.exchange(client.port, [
                ("FROB /health HTTP/1.1\r\nHost: h\r\n\r\n", method: "FROB"),
                ("get /health HTTP/1.1\r\nHost: h\r\n\r\n", method: "get"),
                ("PUT /health HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", method: "PUT"),
                ("BREW /nowhere HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}", method: "BREW"),
                Self.health,
                ("QUERY /health HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", method: "QUERY"),
            ])
            try expectProblem(results[0], 501, "method_not_implemented")
            try expectProblem(results[1], 501, "method_not_implemented")
            try expectProblem(results[2], 405, "method_not_allowed")
            #expect(results[2].header("Allow")?.contains("GET") == true)
            try expectProblem(results[3], 501, "method_not_implemented")
            #expect(results[4].status == 200, "the body of the 501 was consumed; the connection carries on: \(results[4])")
            try expectProblem(results[5], 405, "method_not_allowed")  // QUERY is a known (IETF) method
        }
    }

    @Test("an error found after framing (escapes, missing or duplicate parameters) is 400 and keeps the connection")
    func postFramingErrors() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let results = try await Self.exchange(client.port, [
                ("GET /view?uri=%zz HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET"),
                ("GET /view?uri=hub%3Aplain%00 HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET"),
                ("GET /vi%ew HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET"),
                ("POST /action?x=%4 HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", method: "POST"),
                ("GET /view HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET"),
                ("GET /view?uri=hub:plain&uri=hub:plain HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET"),
                ("GET /view?uri=hub:plain HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET"),
            ])
            for result in results.prefix(6) {
                #expect(result.status == 400, "\(result)")
                #expect(result.header("Connection")?.lowercased() != "close", "\(result)")
            }
            try expectProblem(results[0], 400, "invalid_query")
            try expectProblem(results[2], 400, "invalid_path")
            try expectProblem(results[4], 400, "missing_uri")
            try expectProblem(results[5], 400, "duplicate_parameter")
            #expect(results[6].status == 200, "the same connection still serves: \(results[6])")
        }
    }

    @Test("framing in doubt still closes: Content-Length with Transfer-Encoding")
    func ambiguousFramingCloses() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let result = try await Self.exchange(client.port, [(
                "POST /action HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", method: "POST")])
            #expect(result[0].status == 400)
            #expect(result[0].header("Connection")?.lowercased() == "close")
        }
    }

    @Test("a JSON body in a charset other than UTF-8 is 415; utf-8 in any case or quoted is fine")
    func charset() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let body = #"{"uri":"hub:plain","action":"hub:reload"}"#
            for contentType in ["application/json; charset=iso-8859-1", "application/json;charset=utf-16", "application/json; charset=\"latin1\""] {
                try expectProblem(try await client.post("/action", body, contentType: contentType), 415, "unsupported_media_type")
            }
            for contentType in ["application/json; charset=utf-8", "application/json;charset=UTF-8", "application/json; charset=\"utf-8\""] {
                let response = try await client.post("/action", body, contentType: contentType)
                #expect(response.status == 200, "\(contentType): \(response)")
            }
        }
    }
}
