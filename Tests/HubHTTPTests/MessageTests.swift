import HubPrimitives
import HubTestSupport
import Testing
@testable import HubHTTP

/// `HTTPRequest` (fields in one shared box) keeps value semantics, and `HTTPHeaders`' lookups
/// (lengths compared first, fields read in place) find exactly the names they are asked for.
@Suite struct MessageTests {
    @Test func requestCopiesAreIndependent() {
        let original = HTTPRequest(
            method: .get, target: "/view?uri=hub:home", headers: ["Host": "x", "Accept": "*/*"], body: [1, 2],
            remoteAddress: "127.0.0.1")
        var copy = original
        copy.method = .post
        copy.target = "/other"
        copy.path = "/other"
        copy.query = [(name: "a", value: "b")]
        copy.version = .http1_0
        copy.headers.add(name: "X-New", value: "1")
        copy.body = [9]
        copy.remoteAddress = nil
        // Every field of the copy changed; the original kept all of its own.
        #expect(copy.method == .post && original.method == .get)
        #expect(copy.target == "/other" && original.target == "/view?uri=hub:home")
        #expect(copy.path == "/other" && original.path == "/view")
        #expect(copy.query.map(\.name) == ["a"] && original.query.map(\.value) == ["hub:home"])
        #expect(copy.version == .http1_0 && original.version == .http1_1)
        #expect(copy.headers["X-New"] == "1" && original.headers["X-New"] == nil)
        #expect(copy.headers["Host"] == "x")
        #expect(copy.body == [9] && original.body == [1, 2])
        #expect(copy.remoteAddress == nil && original.remoteAddress == "127.0.0.1")
    }

    @Test func headerLookupsMatchNamesExactlyIgnoringCase() {
        let headers = HTTPHeaders([
            (name: "Host", value: "a"), (name: "HOSX", value: "same length, other name"),
            (name: "connection", value: "keep-alive, Upgrade"), (name: "X-Dup", value: "1"), (name: "x-dup", value: "2"),
        ])
        #expect(headers["host"] == "a")
        #expect(headers["HOST"] == "a")
        #expect(headers["hosx"] == "same length, other name")
        #expect(headers["hos"] == nil)
        #expect(headers["Hostx"] == nil)
        #expect(headers.values(for: "X-DUP") == ["1", "2"])
        #expect(headers.values(for: "X-Du") == [])
        #expect(headers.contains("CONNECTION"))
        #expect(!headers.contains("connectio"))
        #expect(headers.containsToken("upgrade", in: "Connection"))
        #expect(!headers.containsToken("close", in: "Connection"))
        #expect(!headers.containsToken("upgrade", in: "Host"))
        var visited: [String] = []
        headers.forEachField { name, value in visited.append("\(name)=\(value)") }
        #expect(visited == headers.fields.map { "\($0.name)=\($0.value)" })
    }

    @Test("a list field's tokens are found as splitting it on commas and trimming OWS finds them, for any bytes")
    func listContainsMatchesSplitting() {
        // The rule as it was written before it read in place.
        func reference(_ value: String, _ token: String) -> Bool {
            value.split(separator: ",").contains { $0.trimmingOWS().asciiCaseInsensitiveEquals(token) }
        }
        let alphabet: [Character] = [",", " ", "\t", "c", "C", "l", "o", "s", "e", "-", "k", "\u{E9}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let value = String((0..<Int.random(in: 0...14, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            for token in ["close", "CLOSE", "c", "", "e-e", "\u{E9}"] {
                #expect(HTTPHeaders.listContains(value, token) == reference(value, token), "\(value.debugDescription) \(token)")
            }
        }
        #expect(HTTPHeaders.listContains("keep-alive, Close", "close"))
        #expect(!HTTPHeaders.listContains("keep-alive, closer", "close"))
        #expect(HTTPHeaders.listContains(" ,\t close\t, ", "close"))
    }

    @Test("ASCII.withUTF8(of:) hands over a string's UTF-8 bytes, whatever kind of string it is")
    func withUTF8GivesTheBytes() {
        let native = String(repeating: "Accept-Encoding ", count: 3)
        let substringCopy = String("xx Hub-Components: default:row".dropFirst(3))
        for string in ["", "Vary", "Content-Encoding", "caf\u{E9} \u{1F3B5}", native, substringCopy] {
            #expect(ASCII.withUTF8(of: string) { Array($0) } == Array(string.utf8), "\(string.debugDescription)")
        }
    }

    @Test("ASCII.bytesEqual answers what comparing byte by byte answers, for every length and every differing byte")
    func bytesEqualMatchesElementwise() {
        let base = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for count in 0...base.count {
            let left = Array(base.prefix(count))
            left.withUnsafeBufferPointer { lhs in
                // The same bytes elsewhere, and the same buffer.
                #expect(Array(left).withUnsafeBufferPointer { ASCII.bytesEqual(lhs, $0) }, "length \(count)")
                #expect(ASCII.bytesEqual(lhs, lhs))
                for index in 0..<count {
                    var right = left
                    right[index] ^= 0x20
                    #expect(!right.withUnsafeBufferPointer { ASCII.bytesEqual(lhs, $0) }, "length \(count), byte \(index)")
                }
                if count > 0 {
                    #expect(!Array(left.dropLast()).withUnsafeBufferPointer { ASCII.bytesEqual(lhs, $0) }, "a prefix")
                }
            }
        }
        #expect(ASCII.bytesEqual(UnsafeBufferPointer(start: nil, count: 0), UnsafeBufferPointer(start: nil, count: 0)))
    }

    @Test("ASCII.caseInsensitivePrecedes orders as comparing lowercased bytes one by one does (prefixes first)")
    func caseInsensitivePrecedesMatchesLowercasedBytes() {
        let names = [
            "", "a", "A", "Accept", "accept", "Accept-Language", "ACCEPT-ENCODING", "hub-client", "Hub-Client-Id", "Hub-Client",
            "User-Agent", "user-agentx", "x", "[", "_", "`", "Z", "z", "caf\u{E9}", "CAF\u{C9}", "\u{1F3B5}",
            String(repeating: "Hub-Components-", count: 3),
        ]
        func expected(_ lhs: String, _ rhs: String) -> Bool {
            lhs.utf8.lexicographicallyPrecedes(rhs.utf8) { ASCII.lowercased($0) < ASCII.lowercased($1) }
        }
        for lhs in names {
            for rhs in names {
                #expect(ASCII.caseInsensitivePrecedes(lhs, rhs) == expected(lhs, rhs), "\(lhs.debugDescription) < \(rhs.debugDescription)")
            }
        }
    }

    @Test func malformedVersionOverASocketIs400() async throws {
        try await withServer { server in
            for line in ["GET /hello http/1.1", "GET /hello HTTX/1.1", "GET /hello HTTP-1.1"] {
                let client = try LoopbackClient(port: server.localPort)
                let response = try await blocking {
                    try client.send(line + "\r\nHost: x\r\n\r\n")
                    return try client.readResponse()
                }
                #expect(response.status == 400, "\(line)")
                #expect(response.text.contains("invalid_version"), "\(line)")
            }
        }
    }
}
