import HubTestSupport
import Testing
@testable import HubHTTP

/// Received and written header fields skip the walk for a name their ``FieldNameFilter`` rules
/// out, and only then: every field is still found, in any case, among a hundred names that share
/// lengths and first and last letters; and the names a view request asks for but an app does not
/// send are the ones ruled out.
@Suite struct FieldNameFilterTests {
    /// A hundred distinct names: the usual ones (not the framing fields, which a head must
    /// make sense of), and made-up ones that share lengths, first and
    /// last letters with them and with each other, digits and the other token characters.
    static let names: [String] = {
        let usual = [
            "Host", "User-Agent", "Accept", "Accept-Language", "Accept-Encoding", "Hub-Client", "Hub-Components",
            "traceparent", "tracestate", "If-None-Match", "Hub-Session", "Hub-Client-Id", "Hub-Toggle", "X-Forwarded-For",
            "Forwarded", "X-Request-Id", "Authorization", "Range", "Referer", "Content-Type", "Cookie", "Origin",
            "Pragma", "Last-Event-ID", "ETag", "Vary", "Date", "Server-Timing", "Cache-Control", "Hub-Version",
        ]
        let made = (0..<70).map { index -> String in
            let tokens = Array("abcXYZ0189!#$%&'*+-.^_`|~")
            let first = tokens[index % tokens.count], last = tokens[(index * 7 + 3) % tokens.count]
            return "\(first)\(String(repeating: "m", count: index % 9))\(index)\(last)"
        }
        return usual + made
    }()

    /// `name` with every other letter's case flipped.
    static func otherCase(_ name: String) -> String {
        String(name.enumerated().map { index, character in
            index.isMultiple(of: 2) ? Character(character.uppercased()) : Character(character.lowercased())
        })
    }

    /// The headers of one form answer each name, in either case, with its own value, and answer
    /// nothing for a name one byte longer or with its first byte changed.
    static func expectEveryNameFound(_ headers: HTTPHeaders, _ form: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (index, name) in names.enumerated() {
            #expect(headers[name] == "v\(index)", "\(form): \(name)", sourceLocation: sourceLocation)
            #expect(headers[otherCase(name)] == "v\(index)", "\(form): \(otherCase(name))", sourceLocation: sourceLocation)
            #expect(headers.contains(name.lowercased()), "\(form): \(name.lowercased())", sourceLocation: sourceLocation)
            var values: [String] = []
            headers.forEachValueBytes(named: name.uppercased()) { bytes in
                values.append(String(decoding: bytes, as: UTF8.self))
                return true
            }
            #expect(values == ["v\(index)"], "\(form): \(name.uppercased())", sourceLocation: sourceLocation)
            #expect(headers[name + "q"] == nil && headers["Q" + name.dropFirst()] == nil, "\(form): \(name)", sourceLocation: sourceLocation)
        }
    }

    @Test("every received and written field is found in any case among a hundred names; near misses are not")
    func everyFieldIsFound() throws {
        let lines = Self.names.enumerated().map { "\($1): v\($0)\r\n" }.joined()
        let limits = HTTPServerConfiguration.Limits(headerBytes: 16_384, headerCount: 200)
        let parsed = parseAll("GET / HTTP/1.1\r\n" + lines + "\r\n", limits: limits, chunk: Int.max)
        let request = try #require(parsed.requests.first, "\(String(describing: parsed.error))")
        Self.expectEveryNameFound(request.headers, "received")
        var written = HTTPHeaders(writingCapacity: 64)
        for (index, name) in Self.names.enumerated() { written.add(name: name, value: "v\(index)") }
        Self.expectEveryNameFound(written, "written")
        // The filter only ever over-reports: a field added to written fields is found at once.
        written.add(name: "X-Added-Later", value: "late")
        #expect(written["x-added-later"] == "late")
    }

    @Test("the names a view request asks for and an app does not send are ruled out without a walk")
    func absentNamesAreRuledOut() {
        let sent = ["Host", "User-Agent", "Accept", "Accept-Language", "Accept-Encoding", "Hub-Client", "Hub-Components", "traceparent"]
        let asked = [
            "If-None-Match", "Hub-Session", "Hub-Client-Id", "Hub-Toggle", "X-Forwarded-For", "Forwarded", "tracestate",
            "X-Request-Id", "Authorization", "Range", "Content-Length", "Transfer-Encoding",
        ]
        let summary = sent.reduce(UInt64(0)) { summary, name in summary | name.utf8.withContiguousStorageIfAvailable(FieldNameFilter.bit)! }
        let ruledOut = asked.filter { name in summary & name.utf8.withContiguousStorageIfAvailable(FieldNameFilter.bit)! == 0 }
        #expect(ruledOut == asked, "every name asked for and not sent is ruled out, not walked for")
        for name in sent {
            let bit = name.utf8.withContiguousStorageIfAvailable(FieldNameFilter.bit)!
            #expect(bit == name.lowercased().utf8.withContiguousStorageIfAvailable(FieldNameFilter.bit)!, "\(name): case is ignored")
        }
    }
}
