import Testing
@testable import HubHTTP

/// ``ReceivedLines``: a copy of a request's field lines matches a later request exactly when that
/// request came with the same lines, byte for byte and in order, whatever the ignored names'
/// lines say; never for fields made in code.
@Suite struct ReceivedLinesTests {
    static let trace = ["traceparent", "tracestate"]

    /// The fields of a request a parser made from `lines` (each "Name: value", CRLF added): an
    /// HTTP/1.1 request, or HTTP/1.0 when the lines have no `Host` (which 1.1 requires).
    static func received(_ lines: [String]) throws -> HTTPHeaders {
        var parser = RequestParser(limits: .init())
        let version = lines.contains { $0.lowercased().hasPrefix("host:") } ? "HTTP/1.1" : "HTTP/1.0"
        parser.append(Array(("GET /view?session=x \(version)\r\n" + lines.map { $0 + "\r\n" }.joined() + "\r\n").utf8))
        guard case .request(let request) = try parser.parse() else { throw ParseFailure() }
        return request.headers
    }

    struct ParseFailure: Error {}

    static let app = [
        "Host: 127.0.0.1:8080", "User-Agent: HubApp/4.2.0 (iPhone15,3; iOS 18.1; Scale/3.00)", "Accept: application/json",
        "Accept-Language: en-GB,en;q=0.9", "Hub-Client: ios/4.2.0", "traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "Hub-Components: default:row,default:card",
    ]

    /// Whether a copy of `first`'s lines matches `second`'s.
    static func match(_ first: [String], _ second: [String], ignoring: [String] = trace) throws -> Bool {
        var lines = ReceivedLines(ignoring: ignoring)
        let copied1 = lines.copy(from: try received(first))
        #expect(copied1)
        return lines.matches(try received(second))
    }

    @Test("the same lines match; a different trace context does not matter, in any number or case")
    func sameLines() throws {
        #expect(try Self.match(Self.app, Self.app))
        var otherTrace = Self.app
        otherTrace[5] = "traceparent: 00-11111111111111111111111111111111-2222222222222222-01"
        #expect(try Self.match(Self.app, otherTrace))
        #expect(try Self.match(Self.app, Self.app.filter { !$0.hasPrefix("traceparent") }))
        #expect(try Self.match(Self.app, Self.app + ["TraceState: vendor=1", "TRACEPARENT: 00-1-2-01"]))
        #expect(try Self.match([], []))
        #expect(try Self.match(["traceparent: a"], []))
    }

    @Test("any other difference does not match: a value, a name's case, spacing, order, a line more or less")
    func otherLines() throws {
        var changes: [[String]] = []
        for index in Self.app.indices where index != 5 {
            var value = Self.app
            value[index] += "x"
            changes.append(value)
            var upper = Self.app
            upper[index] = upper[index].uppercased()
            changes.append(upper)
            var spaced = Self.app
            spaced[index] += " "
            changes.append(spaced)
            var removed = Self.app
            removed.remove(at: index)
            changes.append(removed)
        }
        changes.append(Self.app + ["User-Agent: again"])
        changes.append(Array(Self.app.reversed()))
        changes.append(["X-A: 1", "X-B: 2"])
        changes.append([])
        for change in changes {
            #expect(try !Self.match(Self.app, change), "\(change)")
            #expect(try !Self.match(change, Self.app), "\(change)")
        }
        // Lines whose bytes together are the same but split otherwise.
        #expect(try !Self.match(["X-A: 1", "X-B: 2"], ["X-A: 1", "X-B: 2", "X-C: 3"]))
        #expect(try !Self.match(["X-A: 1, X-B: 2"], ["X-A: 1", "X-B: 2"]))
        // Nothing ignored: the trace context is a line like any other.
        var otherTrace = Self.app
        otherTrace[5] = "traceparent: 00-11111111111111111111111111111111-2222222222222222-01"
        #expect(try !Self.match(Self.app, otherTrace, ignoring: []))
    }

    @Test("fields made in code, or changed since they were received, are never copied or matched")
    func onlyReceivedFields() throws {
        var lines = ReceivedLines(ignoring: Self.trace)
        #expect(!lines.matches(try Self.received(Self.app)), "nothing copied yet")
        let copied2 = lines.copy(from: HTTPHeaders([(name: "Host", value: "h")]))
        #expect(!copied2)
        #expect(!lines.matches(try Self.received(["Host: h"])))
        let copied3 = lines.copy(from: try Self.received(["Host: h"]))
        #expect(copied3)
        #expect(!lines.matches(HTTPHeaders([(name: "Host", value: "h")])))
        var changed = try Self.received(["Host: h"])
        changed.add(name: "X-A", value: "1")
        changed.remove(name: "X-A")
        #expect(!lines.matches(changed), "the same fields, but no longer as received")
        // A failed copy forgets the one before.
        let copied4 = lines.copy(from: HTTPHeaders())
        #expect(!copied4)
        #expect(!lines.matches(try Self.received(["Host: h"])))
    }

    @Test("a copy reuses its buffer: a later, shorter request's lines replace the longer one's")
    func copiesReplace() throws {
        var lines = ReceivedLines(ignoring: Self.trace)
        let copied5 = lines.copy(from: try Self.received(Self.app))
        #expect(copied5)
        let copied6 = lines.copy(from: try Self.received(["Host: h"]))
        #expect(copied6)
        #expect(lines.matches(try Self.received(["Host: h"])))
        #expect(!lines.matches(try Self.received(Self.app)))
        #expect(!lines.matches(try Self.received(["Host: h", "Accept: application/json"])))
    }
}
