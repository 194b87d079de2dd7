@testable import HubHTTP
import HubTestSupport
import Testing

/// Chunk extensions follow RFC 9112 section 7.1.1: chunk-ext = *( BWS ";" BWS chunk-ext-name
/// [ BWS "=" BWS chunk-ext-val ] ), a name is a token, a value a token or a quoted-string.
/// A chunk-size line that breaks it is 400 `invalid_chunk` and the connection closes; the forms
/// the grammar allows are read (and ignored).
@Suite("Chunk extensions (RFC 9112 section 7.1.1)")
struct ChunkExtensionTests {
    /// A chunked `POST /echo` whose first chunk-size line is `2` followed by `extensions`.
    static func request(_ extensions: String) -> String {
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\(extensions)\r\nhi\r\n0\r\n\r\n"
    }

    /// The three forms the grammar forbids that were once read: `;` with no name, a quoted value
    /// left open, whitespace after the size with no `;` after it.
    static let refused = [";", #";a="x"#, " "]
    /// Other forbidden forms: a name that is no token, `=` with nothing after it, a control byte
    /// in a quoted value, a bad escape, whitespace at the end, a second `;` with no name.
    static let alsoRefused = [";=b", ";a=", ";a=\"x\u{1}\"", ";a=\"x\\\u{1}\"", ";a=b ", ";a;", "; ", ";\"a\"", ";a=b=c", "\t"]
    /// Forms the grammar allows (BWS around `;` and `=`, quoted pairs, several extensions,
    /// obs-text in a quoted value, a token value with tchar punctuation).
    static let accepted = [
        ";a=b", #" ; a = "q\"x""#, ";a;b=c", "", ";a", "\t;\ta\t=\tb", #";a="""#, #";a="x y;z=\\""#, ";a=\"caf\u{E9}\"",
        ";!#$%&'*+-.^_`|~=!#$%&'*+-.^_`|~",
    ]

    @Test("the parser: forbidden extensions are invalid_chunk, allowed ones are read and the body is the chunks'",
          arguments: refused + alsoRefused)
    func parserRefuses(extensions: String) {
        let error = errorOf(Self.request(extensions))
        #expect(error?.code == "invalid_chunk", "\(extensions.debugDescription)")
        #expect(error?.status.code == 400)
    }

    @Test(arguments: accepted)
    func parserAccepts(extensions: String) throws {
        for piece in [Int.max, 1, 3] {
            let parsed = parseAll(Self.request(extensions), chunk: piece)
            #expect(parsed.error == nil, "\(extensions.debugDescription): \(parsed.error.map { "\($0)" } ?? "")")
            #expect(parsed.requests.map(\.body) == [Array("hi".utf8)], "\(extensions.debugDescription) in pieces of \(piece)")
        }
    }

    @Test("over a socket: each forbidden form is 400 invalid_chunk and the connection closes; the server serves on", arguments: refused)
    func refusedOverSocket(extensions: String) async throws {
        try await withServer { server in
            let client = try LoopbackClient(port: server.localPort)
            let (response, closed) = try await blocking {
                try client.send(Self.request(extensions))
                return (try client.readResponse(), client.waitForClose())
            }
            #expect(response.status == 400, "\(extensions.debugDescription)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.text.contains(#""code":"invalid_chunk""#), "\(response.text)")
            #expect(response.headers["Connection"] == "close")
            #expect(closed, "the connection is closed: its framing cannot be trusted")
            let other = try LoopbackClient(port: server.localPort)
            let echoed = try await blocking {
                try other.send(Self.request(";a=b"))
                return try other.readResponse()
            }
            #expect(echoed.status == 200 && echoed.text == "hi")
        }
    }

    @Test("over a socket: each allowed form is 200 with the body, and the connection carries on",
          arguments: [";a=b", #" ; a = "q\"x""#, ";a;b=c"])
    func acceptedOverSocket(extensions: String) async throws {
        try await withServer { server in
            let client = try LoopbackClient(port: server.localPort)
            let (first, second) = try await blocking {
                try client.send(Self.request(extensions))
                let first = try client.readResponse()
                try client.send(Self.request(extensions))
                return (first, try client.readResponse())
            }
            #expect(first.status == 200, "\(extensions.debugDescription): \(first)")
            #expect(first.text == "hi")
            #expect(first.headers["Connection"] == nil)
            #expect(second.status == 200 && second.text == "hi", "the same connection serves the next request")
        }
    }
}
