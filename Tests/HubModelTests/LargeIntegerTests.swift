import HubModel
import Testing

/// `JSONParser.Options.largeIntegersAsDoubles` (request bodies are described by a JSON
/// Schema, which cannot tell `1e20` from `100000000000000000000`).
@Suite("Large integer literals")
struct LargeIntegerTests {
    @Test("off (default): an integer beyond 64 bits is out of range; on: it is the Double")
    func policy() throws {
        let strict = JSONParser()
        #expect(throws: JSONParseError.self) { try strict.parse(Array("100000000000000000000".utf8)) }
        let lenient = JSONParser(options: .init(largeIntegersAsDoubles: true))
        #expect(try lenient.parse(Array("100000000000000000000".utf8)) == .double(1e20))
        #expect(try lenient.parse(Array("-9223372036854775809".utf8)) == .double(-9223372036854775809.0))
        #expect(try lenient.parse(Array("9223372036854775807".utf8)) == .int(Int.max), "in range stays an integer")
        #expect(throws: JSONParseError.self, "past the finite Double range") {
            try lenient.parse(Array(("1" + String(repeating: "0", count: 400)).utf8))
        }
    }
}
